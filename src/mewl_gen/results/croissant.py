"""`croissant.json` of a Hugging Face export: its records described in Croissant 1.0 metadata
(MLCommons), so that `mlcroissant` and the tools that read Croissant find each task's Parquet shards
and typed columns without our code.

One file set per task (`data/<task>/*.parquet`, every split) and one record set per task, whose fields
are the Parquet columns, each with its description: the item's id, its images (each a PNG, in panel
order), the panels' lists, its task's typed fields (the answer among them) and its files; a pass column
(`depth` ...), bytes of NumPy files, is the card's alone. The dataset is dated the day of its export.
Written as plain JSON: nothing of Croissant's is needed at export time; the tests validate and load it
with `mlcroissant`, which must find nothing to warn of.
"""
from __future__ import annotations

import datetime
import json
from importlib.metadata import version

from mewl_gen.store.card import GENERATOR_BIBTEX
from mewl_gen.tasks import catalog

from .export import ITEM_COLUMNS, Chosen, meaning

CONTEXT = {
    "@language": "en", "@vocab": "https://schema.org/", "citeAs": "cr:citeAs", "column": "cr:column",
    "conformsTo": "dct:conformsTo", "cr": "http://mlcommons.org/croissant/",
    "rai": "http://mlcommons.org/croissant/RAI/", "data": {"@id": "cr:data", "@type": "@json"},
    "dataType": {"@id": "cr:dataType", "@type": "@vocab"}, "dct": "http://purl.org/dc/terms/",
    "equivalentProperty": "cr:equivalentProperty", "examples": {"@id": "cr:examples", "@type": "@json"},
    "extract": "cr:extract", "field": "cr:field", "fileProperty": "cr:fileProperty", "fileObject": "cr:fileObject",
    "fileSet": "cr:fileSet", "format": "cr:format", "includes": "cr:includes", "isLiveDataset": "cr:isLiveDataset",
    "jsonPath": "cr:jsonPath", "key": "cr:key", "md5": "cr:md5", "parentField": "cr:parentField", "path": "cr:path",
    "recordSet": "cr:recordSet", "references": "cr:references", "regex": "cr:regex", "repeated": "cr:repeated",
    "replace": "cr:replace", "samplingRate": "cr:samplingRate", "sc": "https://schema.org/",
    "separator": "cr:separator", "source": "cr:source", "subField": "cr:subField", "transform": "cr:transform",
}
# Croissant's type of each kind of column (Column's, and "images"), and whether it is a list.
TYPES = {"string": "sc:Text", "int": "sc:Integer", "float": "sc:Float", "bool": "sc:Boolean", "class": "sc:Integer",
         "strings": "sc:Text", "images": "sc:ImageObject"}
LISTS = ("strings", "images")
LICENSE_URL = "https://creativecommons.org/licenses/by/4.0/"


def _field(record_set: str, file_set: str, name: str, kind: str, description: str) -> dict:
    source = {"fileSet": {"@id": file_set}, "extract": {"column": name}}
    if kind == "images":
        source["transform"] = {"jsonPath": "bytes"}  # `datasets` stores an Image as {bytes, path}
    return {"@type": "cr:Field", "@id": f"{record_set}/{name}", "name": name, "description": description,
            "dataType": TYPES[kind], **({"repeated": True} if kind in LISTS else {}), "source": source}


def metadata(chosen: Chosen, name: str) -> dict:
    """The Croissant metadata of an export of `chosen`."""
    distribution, record_sets = [], []
    known = catalog.tasks()
    for task in chosen.items:
        export = known[task].export
        file_set, record_set = f"parquet-{task}", task
        distribution.append({"@type": "cr:FileSet", "@id": file_set, "name": file_set,
                             "description": f"{task}: every split's Parquet shards",
                             "encodingFormat": "application/x-parquet", "includes": f"data/{task}/*.parquet"})
        fields = [_field(record_set, file_set, column, kind, what) for column, (kind, what) in ITEM_COLUMNS.items()]
        fields += [_field(record_set, file_set, column, typed.kind, meaning(column, typed, export))
                   for column, typed in export.columns.items()]
        record_sets.append({"@type": "cr:RecordSet", "@id": record_set, "name": record_set,
                            "description": known[task].summary, "key": {"@id": f"{record_set}/key"},
                            "field": fields})
    benchmarks = [catalog.benchmarks()[b] for b in dict.fromkeys(known[t].benchmark for t in chosen.items)]
    return {"@context": CONTEXT, "@type": "sc:Dataset", "name": name,
            "description": "Rendered few-shot grounded-language items (" + "; ".join(b.summary for b in benchmarks)
                           + "), exported by mewl-gen.",
            "conformsTo": "http://mlcommons.org/croissant/1.0", "license": LICENSE_URL, "version": version("mewl-gen"),
            "datePublished": datetime.date.today().isoformat(),
            "citeAs": "\n\n".join([*(b.card.bibtex for b in benchmarks if b.card.bibtex), GENERATOR_BIBTEX]),
            "distribution": distribution, "recordSet": record_sets}


def text(chosen: Chosen, name: str) -> str:
    return json.dumps(metadata(chosen, name), indent=1, ensure_ascii=False) + "\n"
