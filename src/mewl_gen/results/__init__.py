"""From a rendered folder to a result: exports, scoring and the gallery, all read through the store."""
