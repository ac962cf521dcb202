"""A plugin that fails while it is imported."""

raise RuntimeError("this plugin is broken on purpose")
