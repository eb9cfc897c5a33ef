#!/usr/bin/env python3
"""Checks that each component of libtilemla uses only the components it names.

The build states the layers (compiler/CMakeLists.txt, tilemla_component's
LINKS); this script holds the code to them, after libtilemla is linked:

* includes: a source file may include `tilemla/<Layer>/...` headers only of
  its own component and of the components it builds on (transitively), and
  relative includes only inside its own folder tree;
* symbols: an undefined symbol of a component's objects may be defined by a
  component it builds on, or outside tilemla (LLVM, MLIR, libstdc++), never by
  another component.

A violation fails the build with the file, the include or the symbol, and the
dependency the component would need.

Usage: CheckLayers.py MANIFEST NM [--drop COMPONENT:DEP]
MANIFEST lines: `component|folders|headers|deps|objects` (';'-separated
lists; folders: its sources, then its public headers' folder).
--drop removes one declared dependency (the negative test uses it).
"""
import os
import re
import subprocess
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def read_manifest(path):
    components = {}
    for line in open(path):
        line = line.rstrip('\n')
        if not line:
            continue
        name, folders, headers, deps, objects = line.split('|')
        split = lambda text: [item for item in text.split(';') if item]
        components[name] = {'folders': split(folders),
                            'headers': split(headers),
                            'deps': split(deps), 'objects': split(objects)}
    return components


def closure(components, name):
    seen, todo = set(), [name]
    while todo:
        current = todo.pop()
        if current in seen:
            continue
        seen.add(current)
        todo.extend(components[current]['deps'])
    return seen


def header_owner(components, include):
    """The component whose public headers hold `include`, or None."""
    for name, component in components.items():
        for prefix in component['headers']:
            if include.startswith(prefix):
                return name
    return None


def check_includes(components, name, allowed, errors):
    for folder in components[name]['folders']:
        check_folder(components, name, folder, allowed, errors)


def check_folder(components, name, folder, allowed, errors):
    home = components[name]['folders'][0]
    # A folder nested in this one that another component calls home (the C
    # ABI's runtime/capi inside runtime/) is that component's to check.
    others = {c['folders'][0] for other, c in components.items()
              if other != name}
    for root, dirs, files in os.walk(folder):
        dirs[:] = [d for d in dirs if os.path.join(root, d) not in others]
        for file in sorted(files):
            if not file.endswith(('.cpp', '.h')):
                continue
            path = os.path.join(root, file)
            for include in INCLUDE.findall(open(path, errors='replace').read()):
                if include.startswith('.'):
                    target = os.path.normpath(os.path.join(root, include))
                    if not target.startswith(home + os.sep):
                        errors.append(f'{path}: includes "{include}" outside '
                                      f'{name}\'s folder (use a public header)')
                    continue
                owner = header_owner(components, include)
                if owner and owner not in allowed:
                    errors.append(f'{path}: includes "{include}" of {owner}, '
                                  f'which {name} does not link')


def symbols(nm, objects):
    """(defined strongly, undefined) symbol sets of `objects`."""
    defined, undefined = set(), set()
    if not objects:
        return defined, undefined
    output = subprocess.run([nm, '-P', '-A'] + objects, check=True,
                            capture_output=True, text=True).stdout
    for line in output.splitlines():
        fields = line.split()
        if len(fields) < 3:
            continue
        symbol, kind = fields[1], fields[2]
        if kind == 'U':
            undefined.add(symbol)
        elif kind in 'TDBR':
            defined.add(symbol)
    return defined, undefined


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    components = read_manifest(argv[1])
    nm = argv[2]
    if len(argv) == 5 and argv[3] == '--drop':
        component, dep = argv[4].split(':')
        components[component]['deps'].remove(dep)
    tables = {name: symbols(nm, c['objects']) for name, c in components.items()}
    definer = {}
    for name, (defined, _) in tables.items():
        for symbol in defined:
            definer[symbol] = name
    errors = []
    for name in components:
        allowed = closure(components, name)
        check_includes(components, name, allowed, errors)
        missing = {}
        for symbol in tables[name][1]:
            owner = definer.get(symbol)
            if owner and owner not in allowed:
                missing.setdefault(owner, []).append(symbol)
        for owner, names in sorted(missing.items()):
            demangled = subprocess.run(['c++filt'] + sorted(names)[:3],
                                       capture_output=True, text=True).stdout
            errors.append(f'{name} uses {len(names)} symbol(s) of {owner}, '
                          f'which it does not link: ' +
                          ', '.join(demangled.split('\n')[:3]))
    for error in errors:
        print(f'layer check: error: {error}', file=sys.stderr)
    return 1 if errors else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
