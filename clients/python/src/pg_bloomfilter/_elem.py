"""Element keys as the format allows them (docs/format.md): the name of the
hash family that hashed a filter's values, no control characters, valid
UTF-8 (1.12); and bytes shown in a message as the server shows them."""

from __future__ import annotations

from .errors import BloomFilterError


def escape_bytes(data: bytes) -> str:
    """Bytes shown in a message as the server shows an element key that is not
    text (bloom_elem_for_message): printable ASCII as it is (but \\), every
    other byte as \\xNN, so that a message never carries bytes that are not
    text (nor a character decoded from them)."""
    return "".join(
        chr(c) if 0x20 <= c < 0x7F and c != 0x5C else f"\\x{c:02X}" for c in data
    )


def elem_text(elem: bytes) -> str:
    """An element key's text: the family's name (schema.opfamily, plus
    @schema.collation), no control characters, valid UTF-8 (the server checks
    it against the database's encoding).  Raises BloomFilterError."""
    if any(c < 0x20 or c == 0x7F for c in elem):
        raise BloomFilterError("element key holds a control character")
    try:
        return elem.decode("utf-8")
    except UnicodeDecodeError:
        raise BloomFilterError(f'element key "{escape_bytes(elem)}" is not valid UTF-8') from None
