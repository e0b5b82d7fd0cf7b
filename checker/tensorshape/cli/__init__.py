"""The ``tensorshape`` command line."""
