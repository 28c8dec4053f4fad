"""The library's one error."""


class BloomFilterError(ValueError):
    """A value that is not a bloom filter this library reads; a value that
    cannot be probed in or added to one (a type the filter's element key does
    not hash, a value its type refuses); a filter that cannot be created,
    added to or combined as asked.  The message says which, as the server's
    error would."""
