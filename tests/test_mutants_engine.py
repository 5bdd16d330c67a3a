"""Guards found by mutation testing (``make mutation``, docs/testing.md) of engine."""
