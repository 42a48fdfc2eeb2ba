"""Checks what holds a backend together across three files nobody else
compares: the rules (rules/<backend>.ninja), the variables the planner
writes (each backend's writeVariables and edge bindings) and the options
each stage tool accepts (its main's cl::opts).

usage: check_plan_contract.py <build dir> <tools dir>

Reads <build dir>/build.ninja and the rule files it includes. For every
edge: each $variable its rule's command uses must be defined at the top of
build.ninja, on the edge or in the rule (Ninja would silently expand an
undefined one to nothing); each --option the expanded command passes to a
tool of <tools dir> must be one that tool lists in --help-list-hidden.
Prints one line per problem, naming the rule file and rule; exit 1 if any.
"""
import os
import re
import shlex
import subprocess
import sys

BUILTIN = {"in", "out", "in_newline"}
VAR = re.compile(r"\$(?:\{(\w+)\}|(\w+))")


def parse(path, globals_, rules, edges, origin=None):
    current = None  # ("rule", name) or ("build", edge dict)
    for raw in open(path):
        line = raw.rstrip("\n")
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if line.startswith((" ", "\t")):
            key, _, value = line.strip().partition("=")
            if current and current[0] == "rule":
                rules[current[1]]["vars"][key.strip()] = value.strip()
            elif current and current[0] == "build":
                current[1]["vars"][key.strip()] = value.strip()
            continue
        current = None
        if line.startswith("include ") or line.startswith("subninja "):
            parse(line.split(None, 1)[1], globals_, rules, edges, line.split(None, 1)[1])
        elif line.startswith("rule "):
            name = line.split()[1]
            rules[name] = {"vars": {}, "file": path}
            current = ("rule", name)
        elif line.startswith("build "):
            outputs, _, rest = line[6:].partition(": ")
            rule = rest.split()[0] if rest.split() else ""
            edge = {"rule": rule, "outputs": outputs.split("|")[0].split(),
                    "inputs": rest.split("|")[0].split()[1:], "vars": {}}
            edges.append(edge)
            current = ("build", edge)
        elif line.startswith("pool ") or line.startswith("default "):
            current = ("pool", None)
        elif "=" in line:
            key, _, value = line.partition("=")
            globals_[key.strip()] = value.strip()


def expand(text, scope, undefined):
    def one(m):
        name = m.group(1) or m.group(2)
        if name in scope:
            return scope[name]
        undefined.add(name)
        return ""
    # One level is enough for what Retune writes; expand twice for rule vars
    # that name edge vars.
    return VAR.sub(one, VAR.sub(one, text.replace("$$", "\0"))).replace("\0", "$")


def tool_options(tool, cache={}):
    if tool not in cache:
        out = subprocess.run([tool, "--help-list-hidden"], capture_output=True,
                             text=True).stdout
        cache[tool] = set(re.findall(r"^\s+--?([\w-]+)", out, re.M))
    return cache[tool]


def main():
    build_dir, tools_dir = sys.argv[1], os.path.realpath(sys.argv[2])
    os.chdir(build_dir)
    globals_, rules, edges = {}, {}, []
    parse("build.ninja", globals_, rules, edges)
    problems, unbound = set(), {}
    for edge in edges:
        rule = rules.get(edge["rule"])
        if rule is None:  # phony
            continue
        scope = dict(globals_)
        scope.update(edge["vars"])
        scope["in"] = " ".join(edge["inputs"])
        scope["out"] = " ".join(edge["outputs"])
        for key, value in rule["vars"].items():
            if key != "command":
                scope.setdefault(key, value)
        undefined = set()
        command = expand(rule["vars"].get("command", ""), scope, undefined)
        where = f"{os.path.relpath(rule['file'], os.path.dirname(rule['file']) + '/..')}: rule {edge['rule']}"
        for name in sorted(undefined - BUILTIN):
            unbound.setdefault((where, name), []).append(edge["outputs"][0])
        for part in re.split(r"&&|\|\|", command):
            try:
                words = shlex.split(part)
            except ValueError:
                continue
            if not words:
                continue
            tool = os.path.realpath(words[0])
            if os.path.dirname(tool) != tools_dir:
                continue
            known = tool_options(tool)
            for word in words[1:]:
                if not word.startswith("-") or word == "-":
                    continue
                name = word.lstrip("-").split("=", 1)[0]
                if name not in known:
                    problems.add(f"{where} passes {word.split('=')[0]} to "
                                 f"{os.path.basename(tool)}, which has no such option")
    for (where, name), outputs in unbound.items():
        problems.add(f"{where} uses ${name}, which the plan defines neither at "
                     f"the top of build.ninja nor on {len(outputs)} of its edges "
                     f"(e.g. {outputs[0]}); bind it, empty if need be")
    for p in sorted(problems):
        print(p)
    print(f"checked {len(edges)} edges of {len(rules)} rules", file=sys.stderr)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
