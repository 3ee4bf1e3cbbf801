#!/usr/bin/env python3
"""Generate a large routing corpus (and prompts for it) as JSONL, reproducibly.

The scale benchmarks need 10,000 to 100,000 documents, far more than any real corpus at
hand, and a vocabulary that grows with the corpus the way an organisation's does (team
names, systems, regions). Each generated document takes a *base* surface and rewords it:

* bases are the triggers and example prompts of the development sets' documents
  (``--seed-corpus ../shared/eval/*/policies``), or, without them, a built-in bank of
  action × object templates (so a test or CI run needs nothing outside the repo);
* wording varies by synonym swaps, a lead-in ("Use when", "Governs", ...), and a scope
  clause naming a codename, a team and a region; the codename (adjective-noun-serial)
  makes every name unique and gives each document words of its own;
* half the documents get a second surface (one reworded example prompt), so the corpus
  has about 1.5 surfaces per document;
* the body is a short markdown page (about 400 bytes), what ``gov show`` delivers;
  ``--body-passages N`` appends N paragraphs to it (a skill-sized body: the 1,354 public
  skills of the zero-shot measurements average 23 passages), each distinct, so a build
  with bodies embeds as a long real corpus would.

Prompts (``--prompts N``) reword a random document's surfaces and carry its name in
``expected``; one in ten is off-topic (``expected: []``). Only the standard library is
used here, plus gov itself when ``--seed-corpus`` is given.

    python benchmarks/gen_corpus.py 100000 -o /tmp/corpus-100k.jsonl \
        --prompts 100000 --prompts-out /tmp/prompts-100k.jsonl
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

ACTIONS = [
    "deploying", "rolling back", "rotating", "reviewing", "approving", "migrating", "archiving",
    "deleting", "exporting", "importing", "auditing", "monitoring", "scaling", "patching",
    "configuring", "testing", "releasing", "documenting", "sharing", "encrypting", "backing up",
    "restoring", "renaming", "provisioning", "decommissioning", "benchmarking", "profiling",
    "debugging", "labelling", "tagging", "publishing", "signing", "reporting", "budgeting",
    "hiring for", "onboarding to", "escalating", "triaging", "forecasting", "pricing",
]
OBJECTS = [
    "database schemas", "API keys", "customer records", "payment flows", "access tokens",
    "container images", "feature flags", "on-call rotations", "incident reports", "log streams",
    "analytics dashboards", "model weights", "training data", "vendor contracts", "invoices",
    "SSO settings", "DNS records", "TLS certificates", "backup snapshots", "message queues",
    "cache clusters", "search indexes", "mobile builds", "release notes", "pull requests",
    "dependency upgrades", "open source licences", "personal data", "audit trails", "cost reports",
    "load balancers", "firewall rules", "service accounts", "webhooks", "email templates",
    "support tickets", "pricing pages", "data retention jobs", "GPU quotas", "legal holds",
]
LEADS = [
    "Use when {x}.", "Governs {x}.", "Applies to {x}.", "Read this before {x}.",
    "The rules for {x}.", "Follow this document when {x}.", "Covers {x}.", "{X}.",
]
LEAD_PREFIXES = [lead.split("{")[0] for lead in LEADS if not lead.startswith("{")]
SCOPES = [
    " for the {code} service", " in the {region} region", " owned by the {team} team",
    " for the {code} service owned by {team}", " across {team} projects in {region}",
    " ({code}, {region})", "",
]
ASKS = [
    "how do I go about {x}", "I need help {x}", "what is the process for {x}",
    "can you walk me through {x}", "we are {x} today, what should I check",
    "is there a policy on {x}", "{x} for {code}, any rules", "quick question about {x}",
]
OFF_TOPIC = [
    "what is the weather like in lisbon tomorrow", "tell me a joke about penguins",
    "how many minutes are in a week", "recommend a sci-fi novel",
    "translate good morning to french",
    "what year did the berlin wall fall", "suggest a name for my cat", "how tall is mount everest",
    "play some relaxing jazz", "what rhymes with orange",
]
SYNONYMS = {
    "deploying": ["shipping", "rolling out", "pushing"], "reviewing": ["checking", "inspecting"],
    "deleting": ["removing", "purging", "dropping"], "customer": ["client", "user"],
    "records": ["data", "entries"], "keys": ["credentials", "secrets"], "help": ["assistance"],
    "rules": ["guidelines", "requirements"], "process": ["procedure", "steps"],
    "request": ["ask", "question"], "about": ["regarding", "concerning"], "make": ["create"],
    "change": ["modify", "update"], "check": ["verify", "confirm"], "cancel": ["stop", "call off"],
    "account": ["profile"], "money": ["funds", "cash"], "card": ["credit card", "debit card"],
    "book": ["reserve"], "find": ["look up", "locate"], "show": ["display", "list"],
}
ADJECTIVES = [
    "amber", "azure", "bold", "brisk", "calm", "cedar", "coral", "crimson", "dusty", "ember",
    "fern", "frosty", "golden", "granite", "hazel", "indigo", "ivory", "jade", "lunar", "maple",
    "misty", "mossy", "noble", "ochre", "olive", "pearl", "quiet", "rapid", "rusty", "sable",
    "silver", "slate", "solar", "stormy", "sunny", "swift", "tidal", "topaz", "velvet", "wild",
]
NOUNS = [
    "falcon", "otter", "badger", "heron", "lynx", "marten", "osprey", "panda", "quail", "raven",
    "salmon", "tiger", "walrus", "yak", "zebra", "beacon", "canyon", "delta", "fjord", "glacier",
    "harbor", "island", "jetty", "kestrel", "lagoon", "meadow", "nebula", "orchid", "prairie",
    "quarry", "ridge", "summit", "tundra", "valley", "willow", "comet", "dune", "geyser", "mesa",
    "atlas",
]
TEAMS = [
    "payments", "identity", "search", "growth", "platform", "data", "mobile", "billing", "infra",
    "security", "support", "ml", "web", "checkout", "ledger", "risk", "compliance", "ads",
    "messaging", "storage",
]
REGIONS = [
    "eu-west", "eu-central", "us-east", "us-west", "ap-south", "ap-northeast", "sa-east",
    "ca-central", "me-central", "af-south",
]


def synthetic_bases() -> list[tuple[str, list[str]]]:
    """Action × object templates: a trigger phrase and two example prompts each."""
    bases = []
    for action in ACTIONS:
        for obj in OBJECTS:
            phrase = f"{action} {obj}"
            bases.append((phrase, [f"I am {phrase} this week", f"rules for {phrase}"]))
    return bases


def seeded_bases(folders: Sequence[str]) -> list[tuple[str, list[str]]]:
    """Triggers and examples of existing documents (e.g. the development sets) as bases."""
    from gov.core.corpus.reader import load_corpus

    bases = []
    documents = [doc for folder in folders  # one at a time: the sets share a few names
                 for doc in load_corpus([folder], warn=lambda _message: None).documents]
    for doc in documents:
        trigger = re.sub(r"^the user's request is about:\s*", "", doc.trigger, flags=re.I)
        bases.append((trigger.rstrip(".").strip(), list(doc.examples)))
    return bases


def _vary(text: str, rng: random.Random, rate: float = 0.3) -> str:
    words = text.split()
    for i, word in enumerate(words):
        choices = SYNONYMS.get(word.lower())
        if choices and rng.random() < rate:
            words[i] = rng.choice(choices)
    return " ".join(words)


def _fill(template: str, x: str, scope: dict[str, str]) -> str:
    return template.format(x=x, X=x[:1].upper() + x[1:], **scope)


RULES = [
    "record the change in the log", "ask a second reviewer to approve it",
    "check the dashboards for ten minutes afterwards", "write down who owns the rollback",
    "tell the support team before customers notice", "keep the previous version for a week",
    "run the checks in staging first", "link the ticket in the commit message",
]


def body_passages(base: Sequence[tuple[str, list[str]]], count: int, scope: dict[str, str],
                  rng: random.Random) -> str:
    """``count`` paragraphs of a longer body, each naming the document's codename."""
    paragraphs = []
    for number in range(count):
        phrase, _ = rng.choice(base)
        paragraphs.append(f"Step {number + 1} for {scope['code']}: when {_vary(phrase, rng)} "
                          f"in {scope['region']}, {rng.choice(RULES)} and "
                          f"{rng.choice(RULES)}; the {scope['team']} team decides exceptions.")
    return "".join(f"\n{p}\n" for p in paragraphs)


def generate(count: int, bases: Sequence[tuple[str, list[str]]], seed: int = 0,
             passages: int = 0) -> Iterator[dict[str, object]]:
    """``count`` documents in gov's JSONL document form, the same ones for the same seed
    (``passages`` adds paragraphs to each body without changing anything else)."""
    rng = random.Random(seed)
    for number in range(count):
        base, examples = bases[number % len(bases)]
        code = f"{rng.choice(ADJECTIVES)}-{rng.choice(NOUNS)}-{number}"
        scope = {"code": code, "team": rng.choice(TEAMS), "region": rng.choice(REGIONS)}
        phrase = _vary(base, rng) + _fill(rng.choice(SCOPES), "", scope)
        trigger = _fill(rng.choice(LEADS), phrase, scope)
        surfaces = []
        if rng.random() < 0.5:
            source = rng.choice(examples) if examples else base
            surfaces.append(_vary(source, rng) + f" ({scope['code']})")
        slug = re.sub(r"[^a-z0-9]+", "-", base.lower()).strip("-")[:40]
        name = f"{slug}-{code}"
        title = base[:1].upper() + base[1:]
        body = (f"# {title} ({code})\n\n**Agent-trigger:** {trigger}\n\n"
                f"Owner: the {scope['team']} team. Region: {scope['region']}.\n\n"
                f"Before {base}, check the runbook for {code}, record the change in the log, "
                "and ask a second reviewer to approve it. Escalate to the owning team when "
                "in doubt; exceptions need a written waiver that expires within 90 days.\n")
        if passages:
            body += body_passages(bases, passages, scope, random.Random(seed * 1_000_003 + number))
        yield {"name": name, "trigger": trigger, "examples": surfaces, "body": body}


def prompts_for(documents: Sequence[dict[str, object]], count: int, seed: int = 1
                ) -> Iterator[dict[str, object]]:
    """Prompts that reword a random document's surfaces; one in ten off-topic."""
    rng = random.Random(seed)
    for number in range(count):
        if rng.random() < 0.1:
            yield {"id": number, "prompt": rng.choice(OFF_TOPIC), "expected": []}
            continue
        doc = documents[rng.randrange(len(documents))]
        body = str(doc["trigger"]).rstrip(".")
        for lead in LEAD_PREFIXES:
            if body.startswith(lead):
                body = body[len(lead):]
                break
        code = str(doc["name"]).rsplit("-", 3)[-3:]
        scope = {"code": "-".join(code)}
        prompt = _fill(rng.choice(ASKS), _vary(body[:1].lower() + body[1:], rng), scope)
        yield {"id": number, "prompt": prompt, "expected": [doc["name"]]}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("count", type=int, help="number of documents")
    parser.add_argument("-o", "--output", type=Path, help="documents JSONL (default: stdout)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--seed-corpus", nargs="*", default=[],
                        help="folders of documents whose surfaces are the bases")
    parser.add_argument("--body-passages", type=int, default=0,
                        help="paragraphs appended to each body (default 0)")
    parser.add_argument("--prompts", type=int, default=0, help="also write this many prompts")
    parser.add_argument("--prompts-out", type=Path, help="prompts JSONL (needed with --prompts)")
    args = parser.parse_args(argv)
    bases = seeded_bases(args.seed_corpus) if args.seed_corpus else synthetic_bases()
    documents = list(generate(args.count, bases, args.seed, args.body_passages))
    out = args.output.open("w", encoding="utf-8") if args.output else sys.stdout
    with out:
        for doc in documents:
            out.write(json.dumps(doc, ensure_ascii=False) + "\n")
    if args.prompts:
        if args.prompts_out is None:
            parser.error("--prompts needs --prompts-out")
        with args.prompts_out.open("w", encoding="utf-8") as handle:
            for row in prompts_for(documents, args.prompts, args.seed + 1):
                handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
