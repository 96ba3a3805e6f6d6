"""The function map notifications-engine gives templates: sprig.TxtFuncMap() less env.

notifications-engine (pkg/templates/service.go, at the commit Argo CD v3.2.12 pins) starts
from sprig v3.3.0's ``TxtFuncMap`` and deletes ``env`` and ``expandenv``. The families live
in their own modules; the functions not reproduced here (password hashing, key and
certificate generation, AES, DNS lookups) are still *names* a template may use, so parsing
accepts them and calling one is an execution error that says so.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache

from reporters.gotemplate import (
    sprig_dates,
    sprig_defaults,
    sprig_dicts,
    sprig_encoding,
    sprig_lists,
    sprig_math,
    sprig_paths,
    sprig_random,
    sprig_regex,
    sprig_semver,
    sprig_strings,
)
from reporters.gotemplate.values import GoError, GoFunc

REMOVED = ("env", "expandenv")
"""Deleted from the map by notifications-engine: a template cannot read the environment."""

UNSUPPORTED = (
    "bcrypt",
    "htpasswd",
    "genPrivateKey",
    "derivePassword",
    "buildCustomCert",
    "genCA",
    "genCAWithKey",
    "genSelfSignedCert",
    "genSelfSignedCertWithKey",
    "genSignedCert",
    "genSignedCertWithKey",
    "encryptAES",
    "decryptAES",
    "getHostByName",
)
"""sprig names this package does not implement (password hashing, keys, certificates,
AES, DNS): parsing accepts them, calling one fails with a clear message."""


def _unsupported(name: str) -> GoFunc:
    def refuse(*_: object) -> str:
        raise GoError(f"{name} is not available in promoflow's renderer")

    return GoFunc(refuse, ("interface {}",), variadic=True, returns="string", name=name)


@cache
def sprig_funcs() -> Mapping[str, GoFunc]:
    funcs: dict[str, GoFunc] = {}
    for family in (
        sprig_strings,
        sprig_lists,
        sprig_dicts,
        sprig_math,
        sprig_encoding,
        sprig_dates,
        sprig_regex,
        sprig_semver,
        sprig_paths,
        sprig_defaults,
        sprig_random,
    ):
        funcs.update(family.FUNCS)
    for name in UNSUPPORTED:
        funcs.setdefault(name, _unsupported(name))
    funcs["hello"] = GoFunc(lambda: "Hello!", (), returns="string", name="hello")
    for name in REMOVED:
        funcs.pop(name, None)
    return funcs
