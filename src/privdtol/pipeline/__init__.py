"""Pipeline: the one config loader (schema shipped as package data), the plan of cells and
batches, file I/O, aggregation of cell tables and the notebook helpers."""
