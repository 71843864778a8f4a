"""`croissant.json` of a Hugging Face export: its records described in Croissant 1.0 metadata
(MLCommons), so that `mlcroissant` and the tools that read Croissant find each task's Parquet shards
and typed columns without our code.

One file set per task (`data/<task>/*.parquet`, every split) and one record set per task, whose fields
are the item's id columns and its task's scalar typed fields (the answer among them); the lists
(images, panels, truths ...) are described by the card. Written as plain JSON: nothing of Croissant's
is needed at export time; the tests validate and load it with `mlcroissant`.
"""
from __future__ import annotations

import json
from importlib.metadata import version

from mewl_gen.store.card import GENERATOR_BIBTEX
from mewl_gen.tasks import catalog

from .export import Chosen

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
TYPES = {"string": "sc:Text", "int": "sc:Integer", "float": "sc:Float", "bool": "sc:Boolean", "class": "sc:Integer"}
ID_COLUMNS = (("key", "string"), ("split", "string"), ("task", "string"), ("index", "int"))
LICENSE_URL = "https://creativecommons.org/licenses/by/4.0/"


def _field(record_set: str, file_set: str, name: str, kind: str, description: str = "") -> dict:
    field = {"@type": "cr:Field", "@id": f"{record_set}/{name}", "name": name, "dataType": TYPES[kind],
             "source": {"fileSet": {"@id": file_set}, "extract": {"column": name}}}
    return {**field, "description": description} if description else field


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
        fields = [_field(record_set, file_set, column, kind) for column, kind in ID_COLUMNS]
        for column, typed in export.columns.items():
            if typed.kind in TYPES:
                what = (f"the answer: index into {', '.join(typed.classes)}" if column == export.answer
                        else f"index into {', '.join(typed.classes)}" if typed.kind == "class" else "")
                fields.append(_field(record_set, file_set, column, typed.kind, what))
        record_sets.append({"@type": "cr:RecordSet", "@id": record_set, "name": record_set,
                            "description": known[task].summary, "key": {"@id": f"{record_set}/key"},
                            "field": fields})
    benchmarks = [catalog.benchmarks()[b] for b in dict.fromkeys(known[t].benchmark for t in chosen.items)]
    return {"@context": CONTEXT, "@type": "sc:Dataset", "name": name,
            "description": "Rendered few-shot grounded-language items (" + "; ".join(b.summary for b in benchmarks)
                           + "), exported by mewl-gen.",
            "conformsTo": "http://mlcommons.org/croissant/1.0", "license": LICENSE_URL, "version": version("mewl-gen"),
            "citeAs": "\n\n".join([*(b.card.bibtex for b in benchmarks if b.card.bibtex), GENERATOR_BIBTEX]),
            "distribution": distribution, "recordSet": record_sets}


def text(chosen: Chosen, name: str) -> str:
    return json.dumps(metadata(chosen, name), indent=1, ensure_ascii=False) + "\n"
