"""sprig's random functions (v3.3.0): random strings, numbers, bytes, UUIDs, shuffles.

They cannot be compared with Go's output, so no vector covers them; their tests check the
alphabet, the length and the range. Randomness comes from the operating system (Go's
goutils uses crypto/rand for the strings, as here).
"""

from __future__ import annotations

import base64
import secrets
import string
import uuid

from reporters.gotemplate.sprig_math import MAX_ITEMS
from reporters.gotemplate.values import GoError, GoFunc, GoInt

S = "string"
_ALPHA = string.ascii_letters
_ALNUM = string.ascii_letters + string.digits
_ASCII = "".join(chr(c) for c in range(32, 127))


def _random(alphabet: str) -> GoFunc:
    def generate(count: int) -> str:
        if count < 0:
            raise GoError(
                f"randomstringutils illegal argument: Requested random string length "
                f"{count} is less than 0."
            )
        if count > MAX_ITEMS:
            raise GoError(f"a random string of {count} characters is too long")
        return "".join(secrets.choice(alphabet) for _ in range(count))

    return GoFunc(generate, ("int",), returns=S)


def _rand_int(low: int, high: int) -> GoInt:
    if high <= low:
        raise GoError("invalid argument to Intn")
    return GoInt(low + secrets.randbelow(high - low))


def _rand_bytes(count: int) -> str:
    if count < 0 or count > MAX_ITEMS:
        raise GoError(f"cannot make {count} random bytes")
    return base64.b64encode(secrets.token_bytes(count)).decode()


def _shuffle(text: str) -> str:
    runes = list(text)
    for i in range(len(runes) - 1, 0, -1):
        j = secrets.randbelow(i + 1)
        runes[i], runes[j] = runes[j], runes[i]
    return "".join(runes)


FUNCS: dict[str, GoFunc] = {
    "randAlphaNum": _random(_ALNUM),
    "randAlpha": _random(_ALPHA),
    "randNumeric": _random(string.digits),
    "randAscii": _random(_ASCII),
    "randInt": GoFunc(_rand_int, ("int", "int"), returns="int"),
    "randBytes": GoFunc(_rand_bytes, ("int",), returns=S),
    "uuidv4": GoFunc(lambda: str(uuid.uuid4()), (), returns=S),
    "shuffle": GoFunc(_shuffle, (S,), returns=S),
}
