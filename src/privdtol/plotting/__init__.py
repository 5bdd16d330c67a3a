"""Figure style shared by the notebooks: colours, markers, display order, bands, saving."""
