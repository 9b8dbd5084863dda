"""wps inside other tools' pipelines: :mod:`wps.integrations.datatrove` (a datatrove step).

Each submodule imports its tool, so import the submodule you use; this package imports nothing.
"""
