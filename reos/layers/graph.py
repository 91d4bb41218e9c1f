"""The import graph of one Python package, built by grimp, with file and line of every
import.

`build(path)` takes the package's folder (the one holding `__init__.py`), puts its parent
first on `sys.path` for grimp to find it (restored afterwards), and returns the package's
modules with their files and every import between modules, to external packages too
(grimp names those by their top-level name: `textual`, `ollama`). Nothing of the checked
code is imported or run: grimp reads the source.

A folder that is not a package, a file that does not parse or is not UTF-8, or a package
of the same name that would be found instead is a UsageError (exit 2) naming the path.
Not responsible for layers or verdicts (reos.layers.check).
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path

from msgspec import Struct, field

from reos.errors import UsageError


class Import(Struct, frozen=True):
    importer: str  # dotted module names
    imported: str
    line: int  # 0 when grimp could not say
    text: str


class CodeBase(Struct):
    package: str
    folder: Path  # the package's folder
    files: dict[str, Path] = field(default_factory=dict)  # module -> its source file
    imports: list[Import] = field(default_factory=list)

    def relative(self, file: Path) -> str:
        """A file as shown in reports: relative to the package's parent folder."""
        try:
            return file.relative_to(self.folder.parent).as_posix()
        except ValueError:
            return str(file)


def package_folder(path: Path) -> Path:
    """The package folder `path` names, or a UsageError saying why it is not one."""
    if not path.exists():
        raise UsageError(f"{path}: no such file or folder")
    if path.is_file():
        if path.name == "__init__.py":
            return path.parent.resolve()
        raise UsageError(f"{path}: a file, not a package",
                         "give the folder of a Python package (the one with __init__.py)")
    if not (path / "__init__.py").is_file():
        inside = sorted(p.name for p in path.iterdir() if (p / "__init__.py").is_file())[:5] \
            if path.is_dir() else []
        hint = ("packages inside it: " + ", ".join(inside)) if inside else \
            "give the folder of a Python package (the one with __init__.py)"
        raise UsageError(f"{path}: not a Python package (no __init__.py)", hint)
    folder = path.resolve()
    if not folder.name.isidentifier():
        raise UsageError(f"{path}: '{folder.name}' cannot be a package name")
    return folder


def build(path: Path) -> CodeBase:
    folder = package_folder(path)
    name = folder.name
    shadow = sys.modules.get(name)
    ours = shadow is not None and _located_in(shadow.__spec__, folder)
    sys.path.insert(0, str(folder.parent))
    if shadow is not None and not ours:
        del sys.modules[name]  # grimp finds packages with find_spec, which asks sys.modules
    try:
        importlib.invalidate_caches()
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            spec = None
        if not _located_in(spec, folder):
            raise UsageError(f"{path}: another package named '{name}' would be read instead",
                             "check the folder under another name, or from elsewhere")
        graph = _grimp_graph(name, path)
    finally:
        sys.path.remove(str(folder.parent))
        if shadow is not None and not ours:
            sys.modules[name] = shadow
    base = CodeBase(package=name, folder=folder)
    for module in sorted(graph.modules):
        if module != name and not module.startswith(name + "."):
            continue
        parts = module.split(".")[1:]
        plain = folder.joinpath(*parts).with_suffix(".py") if parts else None
        base.files[module] = plain if plain and plain.is_file() else \
            folder.joinpath(*parts, "__init__.py")
    for module in base.files:
        for imported in sorted(graph.find_modules_directly_imported_by(module)):
            details = graph.get_import_details(importer=module, imported=imported)
            if not details:
                base.imports.append(Import(module, imported, 0, ""))
            for detail in details:
                base.imports.append(Import(module, imported, int(detail["line_number"]),
                                           str(detail["line_contents"])))
    return base


def _located_in(spec: object, folder: Path) -> bool:
    locations = getattr(spec, "submodule_search_locations", None) or []
    try:
        return any(Path(place).resolve() == folder for place in locations)
    except (OSError, TypeError):
        return False


def _grimp_graph(name: str, path: Path):  # noqa: ANN202 - grimp's ImportGraph
    import grimp  # deferred: only `reos layers` pays for it
    from grimp.exceptions import GrimpException, SourceSyntaxError

    try:
        return grimp.build_graph(name, include_external_packages=True, cache_dir=None)
    except SourceSyntaxError as exc:
        raise UsageError(f"{exc.filename}: syntax error on line {exc.lineno or '?'}; its "
                         "imports cannot be read", "fix the file, or check another "
                         "package") from None
    except UnicodeError as exc:
        raise UsageError(f"{path}: a file is not UTF-8 text ({exc})") from None
    except OSError as exc:
        raise UsageError(f"{exc.filename or path}: cannot be read "
                         f"({exc.strerror or exc})") from None
    except (GrimpException, ValueError) as exc:
        raise UsageError(f"{path}: its imports cannot be read ({exc})") from None
