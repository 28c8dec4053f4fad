"""The library's one error."""


class BloomFilterError(ValueError):
    """A value that is not a bloom filter this library reads, or a value that
    cannot be probed in one (a type the filter's element key does not hash).
    The message says which, as the server's error would."""
