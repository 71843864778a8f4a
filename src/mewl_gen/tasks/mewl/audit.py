"""`mewl audit mewl OUT`: does a MEWL dataset test what it claims to?

Per split and task, from the released episode.json files: the independent
oracle (must answer every episode), the text-only guesser, every deprived
exact solver (solver/deprived.py), the learned deprived baselines (solver/learned.py), the
learned probe of a generic view with the task's channel withheld (views.py), the marker scan of the
objects each construction places against those a solver could take for them (roles.py), and chi-square
tests of the answer position and of the concepts each task's solvers report as balanced. A row fails when the oracle
misses an episode, a baseline's 99.9 % interval lies above its chance, a role
stands out or a balance test fails. Probes of channels no model should learn from (names
only, identity fields) are tasks.audit.Probe cells, each against its floor.
"""
from __future__ import annotations

import json
from typing import Iterable

import numpy as np

from ..audit import BALANCE_P, Audit, AuditRun, Findings, Probe, above_chance, leaking, uniform_p, wilson
from ..audit.rules import consistent, rule_column
from ..stored import StoredItem
from .item import Episode
from .replayed import admits
from .roles import roles, scanned
from .solver import SOLVERS, TaskSolvers, deprived, learned, names
from .views import TITLE as WITHHELD, episode_choices, probe as withheld_probe

# The baselines, by their column titles; an exact solver's column is the bare deprivation.
BASELINES = ("text-only", *(f"{name}{how}" for name in deprived.TITLE.values() for how in ("", " learned")))
PROBES = ("names-only", "names-only learned", "identity learned")
COLUMNS = ("n", "oracle", *BASELINES, *PROBES, WITHHELD, "role markers", "rule-aware", "chance", "position p",
           "balance p")
NOTES = ("every baseline's and probe's cell reads 'accuracy % [95 % interval] / floor'; query-only, no-hand, "
         "no-context-language, no-query (the context and the choices, no query image): exact deprived solvers; "
         f"learned: a model on hand-made features, fitted on at least {learned.MIN_TRAIN} episodes (fewer: '-'); "
         "a floor is the task's text-only analytic chance, or the "
         "deprivation's own where its construction sets one; "
         "names-only: the panels' names (never a context image), the query and the choices, decoding '#k' as "
         "a universe index (exact) and a model on the names' numbers (learned), at the task's chance; identity "
         "learned: a model on index, retry, seeds, camera and lights, choices by position only, at 1/5; "
         f"{WITHHELD}: a model on every choice's generic view with the task's channel withheld (views.py: the "
         "named attribute in the basic tasks' context, the context's scenes, pragmatic's query hand), at its floor; "
         "role markers: the marker scan (roles.py: pragmatic's pointed object against the other standing out, "
         "relation's and bootstrap's named objects against the unnamed, the answer's panels' objects against "
         "the other words'), 'lowest p (role: statistic) / bound, n role+pool', a p under the bound fails; "
         "rule-aware: the samplers' rules that read no image (the answer one of the uttered words in shape, "
         "color and material, an unheard phrase of the context's syntax in composite, the lone truth of a "
         "balanced cycle set under some layout and lexicon in relation; the other tasks' rules admit every "
         "choice) replayed under each choice, a guess among those they admit, at the task's chance; "
         "repeats: episodes whose content (panels' utterances and objects, query, choices, answer) is another "
         "split's, none allowed in test; the verdict fails a cell whose 99.9 % interval lies above its floor")


def _oracle_answers(solvers: TaskSolvers, ep: Episode) -> bool:
    try:
        return solvers.solve(ep.model_copy(update={"lexicon": {}})) == ep.answer
    except Exception:  # an oracle that cannot read the episode has missed it
        return False


def _rate(hits) -> tuple[int, int]:
    hits = np.asarray(hits, dtype=bool)
    return int(hits.sum()), len(hits)


class _Reading:
    """What the audit keeps of one split and task's episodes, read one at a time and then dropped (a parsed
    episode weighs about 75 kB): per episode a few booleans and numbers, each deprived guess under every
    draw it could get, and the learned baselines' feature rows."""

    def __init__(self, task: str, train: Iterable[Episode] | None, whole: bool = True):
        """`whole`: read everything `rates` reports; else only what `_probes` reads (the names-only guesses
        and the names-only and identity tables), which is all `probes` needs: each channel has its own
        generator and table, so leaving the others unread changes none of its numbers."""
        self.task, self.solvers, self.whole = task, SOLVERS[task], whole
        self.rng, self.names_rng = np.random.default_rng(0), np.random.default_rng(0)
        probed = [*([deprived.NAMES_ONLY] if task in names.FALLBACK else []), deprived.IDENTITY]
        self.learns = [*self.solvers.deprived, *probed] if whole else probed
        self.tables = {d: learned.Table(task, d) for d in self.learns}
        self.train, self.withheld, self.withheld_train = None, [], None  # withheld: views.py's episodes
        if train is not None:
            self.train, self.withheld_train = {d: learned.Table(task, d) for d in self.learns}, []
            for ep in train:
                for table in self.train.values():
                    table.add(ep)
                self.withheld_train += [episode_choices(ep)] if whole else []
        self.oracle, self.text_only, self.names_only = [], [], []
        self.guesses: dict[str, list] = {d: [] for d in self.solvers.deprived}
        self.answers, self.kept, self.indices, self.positions = [], [], [], []
        self.roles: dict[str, list] = {}  # per role, (role object's, pool object's) statistics per episode
        self.balance: dict[str, tuple[list, tuple]] = {}
        self.choices = None

    def add(self, ep: Episode) -> None:
        if self.whole:
            self._add_rates(ep)
        if self.task in names.FALLBACK:
            self.names_only.append(names.guess(deprived.view(ep, deprived.NAMES_ONLY), self.names_rng) == ep.answer)
        for table in self.tables.values():
            table.add(ep)
        self.choices = self.choices or len(ep.choices)

    def _add_rates(self, ep: Episode) -> None:
        """What `rates` reports beyond the probes: the oracle, the text-only and deprived guesses, the
        rules replayed, the answer's position and the balanced concepts."""
        solvers = self.solvers
        answered = _oracle_answers(solvers, ep)
        self.oracle.append(answered)
        self.text_only.append(solvers.text_only(ep.model_copy(update={"lexicon": {}}), self.rng) == ep.answer)
        for d, guesser in solvers.deprived.items():
            self.guesses[d].append(deprived.outcomes(guesser.guess, deprived.view(ep, d), ep.answer, guesser.pool))
        self.kept.append(consistent(ep.model_dump(mode="json"), ep.choices, admits))
        self.withheld.append(episode_choices(ep))
        for name, pair in roles(ep).items():
            self.roles.setdefault(name, []).append(pair)
        self.answers.append(ep.answer)
        self.indices.append(ep.index)
        self.positions.append(ep.answer_index)
        if answered:  # balance() reads the oracle's answer; a miss is reported already
            for name, (values, support) in solvers.balance(ep).items():
                self.balance.setdefault(name, ([], support))[0].extend(values)

    def guessed(self, d: str) -> list[bool]:
        """Deprivation d's guesses, their draws made now from the audit's generator, in the episodes' order."""
        return [deprived.replayed(self.rng, *guess) for guess in self.guesses[d]]

    def learned(self, d: str) -> np.ndarray | None:
        """The learned baseline's hits: fitted on --train's episodes, or cross-validated on these."""
        if self.train and len(self.train[d]):
            # As cross_validated: fewer than MIN_TRAIN episodes to fit on read '-', not noise (the views' probe too).
            return learned.fitted_hits(self.train[d], self.tables[d]) if len(self.train[d]) >= learned.MIN_TRAIN else None
        return learned.cross_validated(self.tables[d])


def _read(task: str, episodes: Iterable[Episode], train: Iterable[Episode] | None, whole: bool = True) -> _Reading:
    reading = _Reading(task, train, whole)
    for ep in episodes:
        reading.add(ep)
    return reading


def rates(task: str, episodes: Iterable[Episode], train: Iterable[Episode] | None) -> dict:
    """(hits, n) of the oracle and of every baseline (None: too few episodes to learn), each
    baseline's chance, and the p-values of the balance tests. The episodes are read once, in order."""
    return _rates(_read(task, episodes, train))


def _rates(reading: _Reading) -> dict:
    solvers = reading.solvers
    found: dict = {"oracle": _rate(reading.oracle), "bars": {"text-only": solvers.chance},
                   "text-only": _rate(reading.text_only)}
    for d, guesser in solvers.deprived.items():
        title = deprived.TITLE[d]
        found[title] = _rate(reading.guessed(d))
        learned_hits = reading.learned(d)
        found[f"{title} learned"] = None if learned_hits is None else _rate(learned_hits)
        found["bars"][title] = found["bars"][f"{title} learned"] = guesser.floor
    found["probes"] = _probes(reading)
    found["withheld"] = withheld_probe(reading.task, reading.withheld, reading.withheld_train)
    found["roles"] = scanned(reading.roles)
    found["rule-aware"], found["rules replayed"] = rule_column(reading.answers, reading.kept, reading.indices,
                                                               solvers.chance)
    found["position p"] = uniform_p(reading.positions, tuple(range(5)))
    ps = {name: uniform_p(values, support) for name, (values, support) in reading.balance.items()} or {"nothing": 0.0}
    found["balance worst"] = min(ps, key=ps.get)
    found["balance p"] = ps[found["balance worst"]]
    return found


def probes(task: str, episodes: Iterable[Episode], train: Iterable[Episode] | None) -> dict[str, Probe]:
    """The channels a model is not meant to read, each against its floor: the panels' names where a
    task's names can carry a number (solver/names.py), and the identity fields (deprived.IDENTITY; the
    answer's position is uniform, so a guess of it is at 1 / choices)."""
    return _probes(_read(task, episodes, train, whole=False))


def _probes(reading: _Reading) -> dict[str, Probe]:
    def learned_probe(deprivation: str, floor: float) -> Probe:
        hits = reading.learned(deprivation)
        return Probe(0, 0, floor) if hits is None else Probe(*_rate(hits), floor)

    found = {}
    if reading.task in names.FALLBACK:
        floor = names.FALLBACK[reading.task][1]
        found["names-only"] = Probe(*_rate(reading.names_only), floor)
        found["names-only learned"] = learned_probe(deprived.NAMES_ONLY, floor)
    found["identity learned"] = learned_probe(deprived.IDENTITY, 1 / reading.choices)
    return found


def failures(found: dict) -> list[str]:
    out = []
    hits, n = found["oracle"]
    if hits < n:
        out.append(f"oracle missed {n - hits}")
    for name in BASELINES:
        if found.get(name) and above_chance(*found[name], found["bars"][name]):
            out.append(f"{name} above chance")
    out += leaking({**found.get("probes", {}), **({WITHHELD: found["withheld"]} if "withheld" in found else {})})
    out += found.get("rules replayed", [])
    out += found["roles"].failures("a role") if "roles" in found else []
    if found["position p"] < BALANCE_P:
        out.append("answer position unbalanced")
    if found["balance p"] < BALANCE_P:
        out.append(f"{found['balance worst']} unbalanced")
    return out


def _accuracy(rate: tuple[int, int] | None, bar: float | None) -> str:
    """A baseline's cell, 'accuracy [95 % interval] / floor'; the oracle's has no floor (it must be 100)."""
    if rate is None:
        return "-"
    hits, n = rate
    if bar is not None:
        return Probe(hits, n, bar).cell()
    lo, hi = wilson(hits, n)
    return f"{100 * hits / n:.1f} [{100 * lo:.1f}, {100 * hi:.1f}]"


def _objects(scene: dict) -> list:
    return sorted(sorted(o.items()) for o in scene["objects"])


def key(stored: StoredItem) -> str:
    """What an episode shows a model up to camera, lights, positions, seeds and its panels' order: each
    panel's utterance with its objects (their attributes), the query's objects, the choices and the answer."""
    ep = stored.record()
    panels = sorted(json.dumps([p["utterance"], _objects(p["scene"])]) for p in ep["context_panels"])
    return json.dumps([ep["task"], panels, _objects(ep["query"]), sorted(ep["choices"]), ep["answer"]])


def findings(split: str, task: str, items: list[StoredItem], run: AuditRun) -> Findings:
    """One split and task: episodes are read here, in the worker (pickling them costs more than parsing),
    one at a time (rates keeps none)."""
    found = rates(task, (s.item() for s in items), None if run.train is None else (s.item() for s in run.train))
    chance = SOLVERS[task].chance
    cells = {"n": str(len(items)), "oracle": _accuracy(found["oracle"], None)}
    cells |= {name: _accuracy(found.get(name), found["bars"].get(name)) for name in BASELINES}
    cells |= {name: found["probes"][name].cell() if name in found["probes"] else "-" for name in PROBES}
    cells[WITHHELD], cells["rule-aware"] = found["withheld"].cell(), found["rule-aware"].cell()
    cells["role markers"] = found["roles"].cell()
    cells |= {"chance": f"{100 * chance:.1f}", "position p": f"{found['position p']:.3f}",
              "balance p": f"{found['balance p']:.3f} ({found['balance worst']})"}
    return Findings(cells, failures(found))


AUDIT = Audit(COLUMNS, findings, key, notes=NOTES, learns=True)
