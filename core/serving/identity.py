"""Which installation and version of gov this is: the warm server's name and its answers' signature.

One warm server serves one installation and version, so a venv never gets another's
answers and an upgrade never talks to the old code. The hook's client computes this on
every turn before it opens the socket, so this module imports nothing Python has not
loaded at start-up (``hashlib`` alone costs a turn more than a millisecond, ``binascii``
half of one: the hash is FNV-1a in a few lines), and reads gov's version from
``gov/core/__init__.py``'s constant without importing the library. The installation is
where gov's code and its Python environment live: two virtual environments, or two
checkouts, differ. This separates a user's own installations; it is not a secret (the
runtime folder is the user's alone).
"""

import os
import sys

from .. import __version__

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .wire import HookReply

_CACHE: list[str] = []


def installation() -> str:
    """Twelve hex digits naming where this gov and its Python environment live."""
    if not _CACHE:
        core = os.path.realpath(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        key = f"{sys.prefix}\0{core}".encode("utf-8", "surrogatepass")
        digest = 0xCBF29CE484222325  # FNV-1a, 64 bits
        for byte in key:
            digest = ((digest ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
        _CACHE.append(f"{digest >> 16:012x}")
    return _CACHE[0]


def version() -> str:
    return __version__


def stem(who: "dict[str, str] | None" = None) -> str:
    """``serve-INSTALLATION-VERSION``: the name of this installation's runtime files."""
    installed = who["installation"] if who else installation()
    raw = who["version"] if who else __version__
    safe = "".join(c if c.isalnum() or c in ".-" else "_" for c in raw)
    return f"serve-{installed}-{safe}"


def runtime_folder() -> str:
    """The warm server's folder, found the same way by the server and the hook's client:
    ``$GOV_RUNTIME_DIR``, else ``$XDG_RUNTIME_DIR/gov``, else ``gov-<uid>`` under the temp
    dir (``$TMPDIR``, ``$TEMP``, ``$TMP``, else /tmp). Whether it is safe is checked by each."""
    environ = os.environ
    explicit = environ.get("GOV_RUNTIME_DIR")
    if explicit:
        return explicit
    xdg = environ.get("XDG_RUNTIME_DIR")
    if xdg:
        return os.path.join(xdg, "gov")
    tmp = environ.get("TMPDIR") or environ.get("TEMP") or environ.get("TMP") or "/tmp"
    return os.path.join(tmp, f"gov-{os.getuid()}")


def signature() -> bytes:
    """``INSTALLATION-VERSION`` as bytes: what a hook reply carries and the client checks."""
    return f"{installation()}-{__version__}".encode()


def accepted(blob: bytes) -> "HookReply | None":
    """The hook reply in ``blob`` when this installation's server of this version sent it;
    None for garbage or another installation's or version's answer (the one check the hook
    process and :func:`gov.core.serving.protocol.recover` both make)."""
    from .wire import HookReply  # standard library only, like this module

    try:
        reply = HookReply.decode(blob)
    except ValueError:
        return None
    return reply if reply.ok_for(signature()) else None
