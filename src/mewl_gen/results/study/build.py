"""`mewl study OUT --out DIR`: a rendered dataset's items as a static jsPsych experiment.

DIR holds everything a browser needs and nothing that tells an answer: index.html, study.js (the runner),
study-data.js (the trials: opaque ids, pictures under random names, buttons in a drawn order), study.css,
host.js (where a host keeps the data; the researcher edits it), texts/ (the consent, instructions and end
texts the experiment shows, as they were built in), img/ (each picture re-encoded, so no text chunk of the
rendered PNG comes along) and lib/ (jsPsych and its plugins, copied from the pinned node_modules that
`make setup` installs). It opens from the file system and from any static host, with no network.

The key (each trial's item and each button's answer) is written beside DIR, never inside it: KEY, by default
`<DIR>.key.json`. DIR is staged beside itself and renamed into place at the end; neither DIR nor the key
overwrites anything."""
from __future__ import annotations

import html
import io
import json
import os
import re
from pathlib import Path

from PIL import Image

from mewl_gen.errors import UserError
from mewl_gen.scenes.spec import SpecError, read_regular
from mewl_gen.store.files import make_folder, write_atomic, writing
from mewl_gen.store.manifest import outside_datasets, read_manifest
from mewl_gen.store.new_folder import NewFolder
from mewl_gen.tasks import catalog
from mewl_gen.tasks.stored import StoredItem

from .. import export
from .plan import Plan

WEB = Path(__file__).with_name("web")  # the runner and the text templates, shipped with the package
NODE_MODULES = Path(__file__).resolve().parents[4] / "node_modules"  # the checkout's, made by `make setup`
LIBRARY = {  # DIR/lib/<name> <- node_modules/<path>
    "jspsych.js": "jspsych/dist/index.browser.min.js",
    "jspsych.css": "jspsych/css/jspsych.css",
    "plugin-html-button-response.js": "@jspsych/plugin-html-button-response/dist/index.browser.min.js",
    "plugin-instructions.js": "@jspsych/plugin-instructions/dist/index.browser.min.js",
    "plugin-preload.js": "@jspsych/plugin-preload/dist/index.browser.min.js",
}
RUNNER = ("index.html", "study.js", "study.css", "host.js")
TEXTS = ("consent", "instructions", "end", "declined")  # texts/<name>.html, besides one per benchmark
TEXT_LIMIT = 1 << 20  # bytes of one text file a researcher hands in
ID_PARAMETERS = ("PROLIFIC_PID", "participant", "workerId", "PARTICIPANT_ID", "id")
COMPLETION_PARAMETER = "cc"
PROLIFIC_RETURN = "https://app.prolific.com/submissions/complete?cc="


def key_path(dest: Path) -> Path:
    """Where the key of the study in DEST lives by default: beside it, never inside."""
    return dest.parent / f"{dest.name}.key.json"


def library() -> dict[str, Path]:
    """The browser library to copy, name -> file; one line where `make setup` has not installed it."""
    files = {name: NODE_MODULES / path for name, path in LIBRARY.items()}
    missing = [str(p) for p in files.values() if not p.is_file()]
    if missing:
        raise UserError(f"jsPsych is not installed ({missing[0]} is missing); run `make setup`, which installs it "
                        "with npm ci from package-lock.json")
    return files


def check_places(out: Path, dest: Path, key: Path) -> None:
    """DEST outside the dataset and new (or an empty folder); KEY outside DEST and new: else one line."""
    export.check_dest(out, dest, "write the study", "--out")
    outside_datasets(key, "--key", out)
    if key.resolve() == dest.resolve() or dest.resolve() in key.resolve().parents:
        raise UserError(f"--key {key} lies inside {dest}; the key must stay outside the experiment participants load")
    if key.exists():
        raise UserError(f"{key} exists; the key of a new study never overwrites another's (pass --key NEW.json)")
    if not key.parent.is_dir():
        raise UserError(f"--key {key}: {key.parent} is not a folder")


def paragraphs(text: str) -> str:
    """A benchmark's plain instructions as HTML paragraphs."""
    return "\n".join(f"<p>{html.escape(p.strip())}</p>" for p in text.split("\n\n") if p.strip())


def default_texts(benchmarks: list[str]) -> dict[str, str]:
    """Every text the study shows, name -> HTML: the templates, and each benchmark's instructions."""
    texts = {name: (WEB / f"{name}.html").read_text(encoding="utf-8") for name in TEXTS}
    for name in benchmarks:
        task = next(t for t in catalog.benchmarks()[name].tasks if t.study is not None)
        texts[name] = f"<h2>Instructions</h2>\n{paragraphs(task.study.instructions)}\n"
    return texts


def read_texts(folder: Path | None, benchmarks: list[str]) -> dict[str, str]:
    """The texts, each from FOLDER/<name>.html where the researcher edited one, else the template."""
    texts = default_texts(benchmarks)
    if folder is None:
        return texts
    if not folder.is_dir():
        raise UserError(f"--texts {folder} is not a folder; expected one holding some of "
                        f"{', '.join(f'{n}.html' for n in texts)}")
    for name in texts:
        path = folder / f"{name}.html"
        try:  # judged on the file opened: a link, a FIFO or a folder in its place is refused, a missing one kept
            texts[name] = read_regular(path, TEXT_LIMIT, "a text", links=False).decode("utf-8")
        except FileNotFoundError:
            continue
        except SpecError as err:
            raise UserError(f"--texts: {err}") from None
        except (OSError, UnicodeDecodeError) as err:
            raise UserError(f"--texts: cannot read {path} as UTF-8 text ({err})") from None
    return texts


PLACEHOLDER = re.compile(r"\[[^\[\]<>\n]{1,80}\]")  # "[N]", "[ethics board, reference]": the templates' blanks


def placeholders(texts: dict[str, str]) -> dict[str, list[str]]:
    """'<name>.html' -> the templates' blanks it still holds, in order, for each text holding any: a study
    whose consent names no researcher nor ethics approval is not one to run on people."""
    blanks = {m for name in TEXTS for m in PLACEHOLDER.findall((WEB / f"{name}.html").read_text(encoding="utf-8"))}
    found = {f"{name}.html": [m for m in PLACEHOLDER.findall(text) if m in blanks] for name, text in texts.items()}
    return {name: kept for name, kept in found.items() if kept}


def study_data(plan: Plan, texts: dict[str, str], study: str, per_participant: int) -> dict:
    """window.STUDY: what the runner needs, and no answer (the practice trials' feedback aside)."""
    blocks = [{"instructions": texts[b["benchmark"]], "practice": b["practice"], "tasks": b["tasks"],
               "catch": b["catch"]} for b in plan.blocks]
    shown = {k: texts[k] for k in TEXTS}
    return {"study": study, "per_participant": per_participant, "texts": shown, "blocks": blocks,
            "images": [f"img/{token}.png" for token in plan.images], "id_parameters": list(ID_PARAMETERS),
            "completion_parameter": COMPLETION_PARAMETER, "prolific_return": PROLIFIC_RETURN}


def write_page(staging: Path, data: dict, texts: dict[str, str]) -> None:
    """Everything of the experiment but its pictures: the runner, the library, the texts and the trials."""
    for name in RUNNER:
        write_atomic(staging, staging / name, (WEB / name).read_bytes(), sync=False)
    make_folder(staging, staging / "lib")
    for name, source in library().items():
        write_atomic(staging, staging / "lib" / name, source.read_bytes(), sync=False)
    make_folder(staging, staging / "texts")
    for name, text in texts.items():
        write_atomic(staging, staging / "texts" / f"{name}.html", text, sync=False)
    write_atomic(staging, staging / "study-data.js", "// The trials of this study (mewl study): no answer is written "
                 "here.\nwindow.STUDY = " + script_json(data) + ";\n", sync=False)


def script_json(data: dict) -> str:
    """JSON that stays JSON wherever a page puts it, a <script> block included: no `<` (a dataset's word
    `</script>` would end the block) and no line or paragraph separator, each written as its escape."""
    text = json.dumps(data, ensure_ascii=False, indent=1)
    return text.replace("<", "\\u003c").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def write(staging: Path, plan: Plan, stored: dict[tuple[str, str, int], StoredItem], data: dict,
          texts: dict[str, str]) -> None:
    write_page(staging, data, texts)
    make_folder(staging, staging / "img")
    with export.progress(len(plan.images), "study images") as bar:
        for token, (split, task, index, scene) in plan.images.items():
            with os.fdopen(stored[(split, task, index)].open_file(f"{scene}.png"), "rb") as f, Image.open(f) as im:
                pixels = im.convert("RGBA") if im.mode not in ("RGB", "RGBA", "L", "LA") else im
                clean = Image.frombytes(pixels.mode, pixels.size, pixels.tobytes())  # no text chunk, no metadata
            png = io.BytesIO()
            clean.save(png, "PNG")
            write_atomic(staging, staging / "img" / f"{token}.png", png.getvalue(), sync=False)
            bar.update(1)


def build(out: Path, dest: Path, key: Path, plan: Plan, stored: dict[tuple[str, str, int], StoredItem],
          data: dict, texts: dict[str, str], options: dict) -> None:
    """Write the experiment staged beside DEST, rename it into place, then write the key beside it."""
    check_places(out, dest, key)
    library()  # before any work
    manifest = read_manifest(out)
    record = {"study": data["study"], "dataset": str(out.resolve()), "generator": manifest.get("generator"),
              "seed": manifest.get("seed"), "options": options, "trials": plan.key}
    with NewFolder(dest, "write the study") as staging:
        write(staging, plan, stored, data, texts)
    with writing(key.parent):
        write_atomic(key.parent, key, json.dumps(record, indent=1) + "\n")
