"""The library's version: one place, read by the package, by saved files and studies, and by the build."""

__version__ = "0.1.0"
