"""The text a char-level GRU trains on: its limits, the checks, and reading it from a file.

`check_corpus` runs wherever a model is built (`CharGRU.__init__`), so a corpus typed into a box,
read from a file, or sent by any other client is bounded the same way. `decode_corpus` turns the
bytes of an uploaded file into that text, or says in one sentence why it will not.
"""
import codecs

from gleam import checks

# Limits on a corpus. Its length bounds the file and the page's memory; the number of distinct
# characters V bounds the model: the readout has V rows and every input matrix V columns, so an
# alphabet of thousands (a Chinese text) would be mostly readout, and slow.
MAX_CORPUS_CHARS = 200_000       # characters
MAX_VOCAB = 256                  # distinct characters
MAX_FILE_BYTES = 200_000         # bytes of an uploaded file (UTF-8: never more characters than bytes)

_UTF32_BOMS = (codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE)   # checked first: FF FE 00 00 starts with FF FE
_UTF16_BOMS = (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)


def check_corpus(corpus, seq_len):
    """Raise ValueError unless `corpus` can train a model with chunks of `seq_len` characters:
    a str of at least seq_len + 1 and at most MAX_CORPUS_CHARS characters, with 2 to MAX_VOCAB
    distinct ones. seq_len must be an integer >= 1."""
    seq_len = checks.integer("seq_len", seq_len, minimum=1)
    if not isinstance(corpus, str):
        raise ValueError(f"corpus must be a str, got {type(corpus).__name__}")
    if not corpus:
        raise ValueError("corpus is empty")
    if len(corpus) > MAX_CORPUS_CHARS:
        raise ValueError(f"corpus has {len(corpus):,} characters; the limit is {MAX_CORPUS_CHARS:,}")
    distinct = len(set(corpus))
    if distinct < 2:
        raise ValueError(f"corpus has only one distinct character ({corpus[0]!r}); need at least 2")
    if distinct > MAX_VOCAB:
        raise ValueError(f"corpus has {distinct:,} distinct characters; the limit is {MAX_VOCAB} "
                         "(each one is a row of the readout and a column of every input matrix)")
    if len(corpus) < seq_len + 1:
        raise ValueError(f"corpus has {len(corpus)} characters, need at least seq_len + 1 = "
                         f"{seq_len + 1}")


def _looks_like_utf16(data):
    """UTF-16 without a byte-order mark: the zero bytes sit on one side of the pairs (the high
    byte of every Latin letter, or of the spaces in other scripts), where a binary file has
    them on both."""
    half = len(data) // 2
    zeros = sorted((data[0::2].count(0), data[1::2].count(0)))
    return half > 0 and zeros[1] >= 0.1 * half and zeros[0] <= 0.01 * half


def decode_corpus(data):
    """The text of an uploaded file: UTF-8 (a byte-order mark is dropped), line ends as "\\n".

    ValueError, with a sentence a learner can act on, for anything else: a file over
    MAX_FILE_BYTES, an empty one, UTF-16 or UTF-32 text, a binary file (a NUL byte), bytes that
    are not UTF-8. Whether the text can train a model is `check_corpus`'s question.
    """
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise ValueError(f"expected the file's bytes, got {type(data).__name__}")
    data = bytes(data)
    if len(data) > MAX_FILE_BYTES:
        raise ValueError(f"the file is {len(data):,} bytes; the limit is {MAX_FILE_BYTES:,} bytes")
    if not data:
        raise ValueError("the file is empty")
    if data.startswith(_UTF32_BOMS):
        raise ValueError("the file is UTF-32 text (it starts with a UTF-32 byte-order mark): save it as UTF-8")
    if data.startswith(_UTF16_BOMS):
        raise ValueError("the file is UTF-16 text (it starts with a UTF-16 byte-order mark): save it as UTF-8")
    nul = data.find(b"\0")
    if nul >= 0:
        if _looks_like_utf16(data):
            raise ValueError("the file looks like UTF-16 text (every other byte is 0): save it as UTF-8")
        raise ValueError(f"the file is binary, not text: it has a NUL byte at byte {nul:,}")
    skip = len(codecs.BOM_UTF8) if data.startswith(codecs.BOM_UTF8) else 0
    try:
        text = data[skip:].decode("utf-8")
    except UnicodeDecodeError as e:
        at = skip + e.start
        raise ValueError(
            f"the file is not UTF-8: byte 0x{data[at]:02X} at byte {at:,} cannot be decoded "
            "(a binary file, or text in another encoding such as Latin-1 or Windows-1252: "
            "save it as UTF-8)") from None
    return text.replace("\r\n", "\n").replace("\r", "\n")
