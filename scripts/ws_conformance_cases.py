"""The cases of scripts/ws-conformance: Autobahn|Testsuite's client cases of sections 1-7, 9, 10,
12 and 13, written again (Autobahn itself needs Python 2), as data both servers play.

A case is a dict:
  id       Autobahn's number for the case it stands for ("5.19"), or ours beside it ("6.3.2b")
  title    what it does
  actions  what the server does, in order:
             ["frame", FRAME]         write one frame, raw, through the transport
             ["chop", FRAME, N]       write one frame N bytes at a time, 1 ms apart
             ["ping", PAYLOAD, must]  a raw ping; `must`: its pong has to come back
             ["send", KIND, PAYLOAD]  a message through the library's own send (compressed when
                                      permessage-deflate was negotiated)
             ["sleep", MS]
           FRAME = {"fin": bool, "rsv": 0-7 (RSV1 = 4), "op": opcode, "payload": PAYLOAD,
                    "mask": bool (a masked frame, which a server must never send)}
           PAYLOAD = {"hex": "..."} or {"gen": "text"|"binary"|"random", "size": N, "seed": S}
                     with optional "from"/"to" (a slice of it)
  expect   "echo": the messages in `messages` come back unchanged, every `must` ping is answered
                   with its payload, then the server closes (1000) and the client answers it and
                   exits 0
           "fail": the client fails the connection: a close frame with one of `codes` or the TCP
                   connection dropped, and a non-zero exit
           "close": the client echoes the server's close code (`code`; 1005: an empty close) and exits 0
  deflate  the permessage-deflate configuration the server accepts with (None: it declines),
           set by the driver's run (off, on) or by the case (section 13)
  timeout  seconds the case may take (10 unless said)
"""

TEXT, BINARY, CLOSE, PING, PONG, CONT = 1, 2, 8, 9, 10, 0
PROTOCOL = [1002]
INVALID_UTF8 = [1007]
EITHER = [1002, 1007]


def hexp(data):
    if isinstance(data, str):
        data = data.encode()
    return {"hex": bytes(data).hex()}


def gen(kind, size, seed=0, start=None, end=None):
    payload = {"gen": kind, "size": size, "seed": seed}
    if start is not None:
        payload["from"], payload["to"] = start, end
    return payload


def frame(op, payload=None, fin=True, rsv=0, mask=False):
    return {"fin": fin, "rsv": rsv, "op": op, "payload": payload or hexp(b""), "mask": mask}


def msg(kind, payload):
    return [kind, payload]


def echo_case(cid, title, actions, messages, timeout=10):
    return {"id": cid, "title": title, "actions": actions, "expect": "echo", "messages": messages, "timeout": timeout}


def fail_case(cid, title, actions, codes=PROTOCOL):
    return {"id": cid, "title": title, "actions": actions, "expect": "fail", "codes": codes}


def close_case(cid, title, actions, code):
    return {"id": cid, "title": title, "actions": actions, "expect": "close", "code": code}


def text(data):
    return ["frame", frame(TEXT, hexp(data))]


def ping_action(data, must=True):
    return ["ping", hexp(data), must]


def section1():
    cases = []
    for index, size in enumerate([0, 125, 126, 127, 128, 65535, 65536], start=1):
        payload = gen("text", size, index)
        cases.append(echo_case(f"1.1.{index}", f"text message of {size} bytes", [["frame", frame(TEXT, payload)]], [msg("text", payload)]))
    payload = gen("text", 65536, 8)
    cases.append(echo_case("1.1.8", "text message of 65536 bytes written 997 bytes at a time",
                           [["chop", frame(TEXT, payload), 997 * 8]], [msg("text", payload)]))
    for index, size in enumerate([0, 125, 126, 127, 128, 65535, 65536], start=1):
        payload = gen("binary", size, index)
        cases.append(echo_case(f"1.2.{index}", f"binary message of {size} bytes", [["frame", frame(BINARY, payload)]], [msg("binary", payload)]))
    payload = gen("binary", 65536, 8)
    cases.append(echo_case("1.2.8", "binary message of 65536 bytes written 997 bytes at a time",
                           [["chop", frame(BINARY, payload), 997 * 8]], [msg("binary", payload)]))
    return cases


def section2():
    return [
        echo_case("2.1", "ping without payload", [ping_action(b"")], []),
        echo_case("2.2", "ping with a small text payload", [ping_action("Hello, world!")], []),
        echo_case("2.3", "ping with a small binary payload", [ping_action(bytes([0, 0xff, 0xfe, 0xfd, 0xfc, 0xfb, 0, 0xff]))], []),
        echo_case("2.4", "ping with 125 bytes of payload", [ping_action(bytes([0xfe]) * 125)], []),
        fail_case("2.5", "ping with 126 bytes of payload", [ping_action(bytes([0xfe]) * 126, False)]),
        echo_case("2.6", "ping with 125 bytes written 1 byte at a time",
                  [["chop", frame(PING, hexp(bytes([0xfe]) * 125)), 1], ping_action(b"after", True)], []),
        echo_case("2.7", "unsolicited pong without payload", [["frame", frame(PONG)], text("after the pong")], [msg("text", hexp("after the pong"))]),
        echo_case("2.8", "unsolicited pong with payload", [["frame", frame(PONG, hexp("unsolicited pong payload"))], text("after")], [msg("text", hexp("after"))]),
        echo_case("2.9", "unsolicited pong, then a ping", [["frame", frame(PONG, hexp("unsolicited"))], ping_action("sollicited")], []),
        echo_case("2.10", "10 pings (the last one must be answered)",
                  [ping_action(f"payload-{i}", i == 9) for i in range(10)], []),
        echo_case("2.11", "10 pings written in chunks", [["chop", frame(PING, hexp(f"chunked-{i}")), 1] for i in range(9)]
                  + [ping_action("chunked-9")], []),
    ]


def section3():
    cases = []
    hello = hexp("Hello, world!")
    # Bytes that are no deflate stream: a stored block whose length check fails, then a reserved block type.
    not_deflate = hexp(bytes([0x06, 0x07, 0x08, 0x09]))
    cases.append(fail_case("3.1", "text with RSV1 (invalid as deflate data too)", [["frame", frame(TEXT, hello, rsv=4)]], EITHER))
    cases.append(fail_case("3.2", "text, then text with RSV2, then a ping",
                           [text("Hello, world!"), ["frame", frame(TEXT, hello, rsv=2)], ping_action("x", False)]))
    cases.append(fail_case("3.3", "text, text with RSV1+RSV2 (rsv=6), ping",
                           [text("Hello, world!"), ["frame", frame(TEXT, hello, rsv=6)], ping_action("x", False)]))
    cases.append(fail_case("3.4", "text, text with RSV3 (rsv=1) in chunks, ping",
                           [text("Hello, world!"), ["chop", frame(TEXT, hello, rsv=1), 1], ping_action("x", False)]))
    cases.append(fail_case("3.5", "binary with RSV1+RSV3 (rsv=5)", [["frame", frame(BINARY, not_deflate, rsv=5)]]))
    cases.append(fail_case("3.6", "ping with RSV2+RSV3 (rsv=3)", [["frame", frame(PING, hello, rsv=3)]]))
    cases.append(fail_case("3.7", "close with all RSV bits (rsv=7)", [["frame", frame(CLOSE, hexp(b"\x03\xe8"), rsv=7)]]))
    cases.append(fail_case("3.8", "ping with RSV1", [["frame", frame(PING, hello, rsv=4)]]))
    cases.append(fail_case("3.9", "binary with RSV1 on a continuation frame",
                           [["frame", frame(BINARY, hexp(b"ab"), fin=False)], ["frame", frame(CONT, not_deflate, rsv=4)]], EITHER))
    # Not Autobahn's: a server's frames are never masked (RFC 6455 §5.1).
    cases.append(fail_case("3.10", "a masked text frame from the server", [["frame", frame(TEXT, hello, mask=True)]]))
    return cases


def section4():
    cases = []
    for index, op in enumerate([3, 4, 5, 6, 7], start=1):
        actions = [["frame", frame(op)]] if index <= 2 else [text("Hello, world!"), ["frame", frame(op, hexp("reserved"))], ping_action("x", False)]
        cases.append(fail_case(f"4.1.{index}", f"reserved non-control opcode {op}", actions))
    for index, op in enumerate([11, 12, 13, 14, 15], start=1):
        actions = [["frame", frame(op)]] if index <= 2 else [text("Hello, world!"), ["frame", frame(op, hexp("reserved"))], ping_action("x", False)]
        cases.append(fail_case(f"4.2.{index}", f"reserved control opcode {op}", actions))
    return cases


def section5():
    frag1, frag2 = hexp("fragment1"), hexp("fragment2")
    whole = hexp("fragment1fragment2")
    cases = [
        fail_case("5.1", "a ping in 2 fragments", [["frame", frame(PING, frag1, fin=False)], ["frame", frame(CONT, frag2)]]),
        fail_case("5.2", "a pong in 2 fragments", [["frame", frame(PONG, frag1, fin=False)], ["frame", frame(CONT, frag2)]]),
        echo_case("5.3", "text in 2 fragments", [["frame", frame(TEXT, frag1, fin=False)], ["frame", frame(CONT, frag2)]], [msg("text", whole)]),
        echo_case("5.4", "text in 2 fragments, written in chunks",
                  [["chop", frame(TEXT, frag1, fin=False), 1], ["chop", frame(CONT, frag2), 1]], [msg("text", whole)]),
        echo_case("5.5", "text in 2 fragments, 50 ms apart",
                  [["frame", frame(TEXT, frag1, fin=False)], ["sleep", 50], ["frame", frame(CONT, frag2)]], [msg("text", whole)]),
        echo_case("5.6", "text in 2 fragments with a ping between",
                  [["frame", frame(TEXT, frag1, fin=False)], ping_action("ping payload"), ["frame", frame(CONT, frag2)]], [msg("text", whole)]),
        echo_case("5.7", "as 5.6, written in chunks",
                  [["chop", frame(TEXT, frag1, fin=False), 1], ["chop", frame(PING, hexp("ping payload")), 1], ping_action("p2"),
                   ["chop", frame(CONT, frag2), 1]], [msg("text", whole)]),
        echo_case("5.8", "as 5.6, 50 ms apart",
                  [["frame", frame(TEXT, frag1, fin=False)], ["sleep", 50], ping_action("ping payload"), ["sleep", 50],
                   ["frame", frame(CONT, frag2)]], [msg("text", whole)]),
    ]
    bad = [
        ("5.9", "a continuation (FIN) with nothing to continue, then text", [["frame", frame(CONT, hexp("non-continuation payload"))]]),
        ("5.10", "as 5.9 in chunks", [["chop", frame(CONT, hexp("non-continuation payload")), 1]]),
        ("5.11", "as 5.9, 50 ms apart", [["sleep", 50], ["frame", frame(CONT, hexp("non-continuation payload"))]]),
        ("5.12", "a continuation (not FIN) with nothing to continue",
         [["frame", frame(CONT, hexp("non-continuation payload"), fin=False)]]),
        ("5.13", "as 5.12 in chunks", [["chop", frame(CONT, hexp("non-continuation payload"), fin=False), 1]]),
        ("5.14", "as 5.12, 50 ms apart", [["sleep", 50], ["frame", frame(CONT, hexp("non-continuation payload"), fin=False)]]),
        ("5.15", "text in 2 fragments, then 2 more continuations",
         [["frame", frame(TEXT, frag1, fin=False)], ["frame", frame(CONT, frag2)], ["frame", frame(CONT, hexp("fragment3"), fin=False)],
          ["frame", frame(CONT, hexp("fragment4"))]]),
        ("5.16", "a continuation with nothing to continue, repeated",
         [["frame", frame(CONT, hexp("fragment1"), fin=False)], ["frame", frame(TEXT, hexp("fragment2"), fin=False)],
          ["frame", frame(CONT, hexp("fragment3"))]]),
        ("5.17", "as 5.16 with FIN on the first", [["frame", frame(CONT, hexp("fragment1"))], ["frame", frame(TEXT, frag2, fin=False)],
                                                   ["frame", frame(CONT, hexp("fragment3"))]]),
        ("5.18", "a new text message inside a fragmented one",
         [["frame", frame(TEXT, frag1, fin=False)], ["frame", frame(TEXT, frag2)]]),
    ]
    for cid, title, actions in bad:
        cases.append(fail_case(cid, title, actions + [text("after"), ping_action("x", False)]))
    parts = [hexp(f"fragment{i}") for i in range(1, 6)]
    actions = []
    for index, part in enumerate(parts):
        actions.append(["frame", frame(TEXT if index == 0 else CONT, part, fin=index == 4)])
        if index in (0, 2):
            # A pause after each ping: a client may answer only the latest of pings that come together.
            actions += [ping_action(f"pongme {index}"), ["sleep", 100]]
    all_five = hexp("".join(f"fragment{i}" for i in range(1, 6)))
    cases.append(echo_case("5.19", "text in 5 fragments with pings between", actions, [msg("text", all_five)]))
    actions = []
    for index, part in enumerate(parts):
        if index == 1:
            actions.append(["sleep", 50])
        actions.append(["chop", frame(TEXT if index == 0 else CONT, part, fin=index == 4), 2])
        if index in (0, 2):
            actions.append(ping_action(f"pongme {index}"))
    cases.append(echo_case("5.20", "as 5.19 in chunks, with a pause", actions, [msg("text", all_five)]))
    return cases


VALID_UTF8 = [
    ("6.2.1", "κόσμε and every plane", "Hello-µ@ßöäüàá-UTF-8!!".encode() + "κόσμε".encode() + "\U0001F600".encode()),
    ("6.5.1", "κόσμε", "κόσμε".encode()),
    ("6.7.1", "U+0000", b"\x00"),
    ("6.7.2", "U+0080", b"\xc2\x80"),
    ("6.7.3", "U+0800", b"\xe0\xa0\x80"),
    ("6.7.4", "U+10000", b"\xf0\x90\x80\x80"),
    ("6.9.1", "U+007F", b"\x7f"),
    ("6.9.2", "U+07FF", b"\xdf\xbf"),
    ("6.9.3", "U+FFFF", b"\xef\xbf\xbf"),
    ("6.9.4", "U+10FFFF", b"\xf4\x8f\xbf\xbf"),
    ("6.11.1", "U+D7FF", b"\xed\x9f\xbf"),
    ("6.11.2", "U+E000", b"\xee\x80\x80"),
    ("6.11.3", "U+FFFD", b"\xef\xbf\xbd"),
    ("6.22.1", "noncharacter U+FFFE", b"\xef\xbf\xbe"),
    ("6.22.2", "noncharacter U+10FFFE", b"\xf4\x8f\xbf\xbe"),
    ("6.22.3", "noncharacters U+FDD0..U+FDEF", "".join(chr(c) for c in range(0xFDD0, 0xFDF0)).encode()),
    ("6.23.1", "U+FFFD several times", "\ufffd" * 10 + "end"),
]

INVALID_UTF8_VECTORS = [
    ("6.3.1", "κόσμε then a surrogate", "κόσμε".encode() + b"\xed\xa0\x80" + b"edited"),
    ("6.6.1", "a lone continuation byte", b"\xce"),
    ("6.8.1", "5-byte sequence", b"\xf8\x88\x80\x80\x80"),
    ("6.8.2", "6-byte sequence", b"\xfc\x84\x80\x80\x80\x80"),
    ("6.10.1", "U+110000", b"\xf4\x90\x80\x80"),
    ("6.10.2", "first 5-byte form", b"\xf8\x88\x80\x80\x80"),
    ("6.12.1", "unexpected continuation 80", b"\x80"),
    ("6.12.2", "unexpected continuation BF", b"\xbf"),
    ("6.12.3", "80 BF 80 BF", b"\x80\xbf\x80\xbf"),
    ("6.13.1", "lonely start bytes C0-DF each followed by a space", b"".join(bytes([b, 0x20]) for b in range(0xC0, 0xE0))),
    ("6.13.2", "lonely E0 followed by a space", b"\xe0\x20"),
    ("6.14.1", "C0 missing its last byte", b"\xc0"),
    ("6.14.2", "E0 80 missing its last byte", b"\xe0\x80"),
    ("6.14.3", "F0 80 80 missing its last byte", b"\xf0\x80\x80"),
    ("6.14.4", "DF missing its last byte", b"\xdf"),
    ("6.14.5", "EF BF missing its last byte", b"\xef\xbf"),
    ("6.14.6", "F4 8F BF missing its last byte", b"\xf4\x8f\xbf"),
    ("6.15.1", "incomplete sequences one after another", b"\xc0\xe0\x80\xf0\x80\x80\xdf\xef\xbf"),
    ("6.16.1", "FE", b"\xfe"),
    ("6.16.2", "FF", b"\xff"),
    ("6.16.3", "FE FE FF FF", b"\xfe\xfe\xff\xff"),
    ("6.17.1", "overlong / (C0 AF)", b"\xc0\xaf"),
    ("6.17.2", "overlong / (E0 80 AF)", b"\xe0\x80\xaf"),
    ("6.17.3", "overlong / (F0 80 80 AF)", b"\xf0\x80\x80\xaf"),
    ("6.18.1", "maximum overlong C1 BF", b"\xc1\xbf"),
    ("6.18.2", "maximum overlong E0 9F BF", b"\xe0\x9f\xbf"),
    ("6.18.3", "maximum overlong F0 8F BF BF", b"\xf0\x8f\xbf\xbf"),
    ("6.19.1", "overlong NUL C0 80", b"\xc0\x80"),
    ("6.19.2", "overlong NUL E0 80 80", b"\xe0\x80\x80"),
    ("6.20.1", "surrogate U+D800", b"\xed\xa0\x80"),
    ("6.20.2", "surrogate U+DB7F", b"\xed\xad\xbf"),
    ("6.20.3", "surrogate U+DFFF", b"\xed\xbf\xbf"),
    ("6.21.1", "paired surrogates U+D800 U+DC00", b"\xed\xa0\x80\xed\xb0\x80"),
]


def section6():
    cases = [
        echo_case("6.1.1", "an empty text message", [["frame", frame(TEXT)]], [msg("text", hexp(b""))]),
        echo_case("6.1.2", "an empty text message in 3 empty fragments",
                  [["frame", frame(TEXT, fin=False)], ["frame", frame(CONT, fin=False)], ["frame", frame(CONT)]], [msg("text", hexp(b""))]),
        echo_case("6.1.3", "empty fragments around a non-empty one",
                  [["frame", frame(TEXT, fin=False)], ["frame", frame(CONT, hexp("middle"), fin=False)], ["frame", frame(CONT)]],
                  [msg("text", hexp("middle"))]),
    ]
    for cid, title, data in VALID_UTF8:
        data = data.encode() if isinstance(data, str) else data
        cases.append(echo_case(cid, f"valid UTF-8, one frame: {title}", [["frame", frame(TEXT, hexp(data))]], [msg("text", hexp(data))]))
        actions = [["frame", frame(TEXT if i == 0 else CONT, hexp(data[i:i + 1]), fin=i == len(data) - 1)] for i in range(len(data))]
        cases.append(echo_case(cid + "b", f"valid UTF-8, a frame per byte: {title}", actions, [msg("text", hexp(data))]))
    for cid, title, data in INVALID_UTF8_VECTORS:
        cases.append(fail_case(cid, f"invalid UTF-8, one frame: {title}", [["frame", frame(TEXT, hexp(data))]], INVALID_UTF8))
        actions = [["frame", frame(TEXT if i == 0 else CONT, hexp(data[i:i + 1]), fin=i == len(data) - 1)] for i in range(len(data))]
        cases.append(fail_case(cid + "b", f"invalid UTF-8, a frame per byte: {title}", actions, INVALID_UTF8))
    # 6.4: fail fast. The invalid byte is in a fragment; the message's last fragment never comes.
    cases.append(fail_case("6.4.1", "invalid UTF-8 in the 2nd of 3 fragments, the 3rd never sent",
                           [["frame", frame(TEXT, hexp("κόσμε"), fin=False)], ["frame", frame(CONT, hexp(b"\xf4\x90\x80\x80"), fin=False)],
                            ["sleep", 2000]], INVALID_UTF8))
    cases.append(fail_case("6.4.2", "invalid UTF-8 byte in the middle of one fragment, the rest never sent",
                           [["frame", frame(TEXT, hexp("κόσμε".encode() + b"\xf4\x90\x80\x80" + b"edited"), fin=False)], ["sleep", 2000]],
                           INVALID_UTF8))
    return cases


VALID_CLOSE_CODES = [1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 3000, 3999, 4000, 4999]
INVALID_CLOSE_CODES = [0, 999, 1004, 1005, 1006, 1015, 1016, 1100, 2000, 2999, 5000, 65535]


def close_payload(code, reason=b""):
    return hexp(bytes([code >> 8, code & 0xFF]) + reason)


def section7():
    cases = [
        close_case("7.1.1", "text, then close", [text("Hello World!"), ["frame", frame(CLOSE, close_payload(1000))]], 1000),
        close_case("7.1.2", "close twice", [["frame", frame(CLOSE, close_payload(1000))], ["frame", frame(CLOSE, close_payload(1000))]], 1000),
        close_case("7.1.3", "close, then a ping", [["frame", frame(CLOSE, close_payload(1000))], ping_action("after close", False)], 1000),
        close_case("7.1.4", "close, then text", [["frame", frame(CLOSE, close_payload(1000))], text("after close")], 1000),
        close_case("7.1.5", "a fragment, then close",
                   [["frame", frame(TEXT, hexp("fragment1"), fin=False)], ["frame", frame(CLOSE, close_payload(1000))],
                    ["frame", frame(CONT, hexp("fragment2"))]], 1000),
        close_case("7.1.6", "large messages, then close",
                   [["frame", frame(BINARY, gen("binary", 256 << 10, i))] for i in range(10)] + [["frame", frame(CLOSE, close_payload(1000))]], 1000),
        close_case("7.3.1", "an empty close", [["frame", frame(CLOSE)]], 1005),
        fail_case("7.3.2", "a close with 1 byte of payload", [["frame", frame(CLOSE, hexp(b"\x03"))]]),
        close_case("7.3.3", "a close with a code and no reason", [["frame", frame(CLOSE, close_payload(1000))]], 1000),
        close_case("7.3.4", "a close with a code and a reason", [["frame", frame(CLOSE, close_payload(1000, b"Hello World!"))]], 1000),
        close_case("7.3.5", "a close with a 123-byte reason", [["frame", frame(CLOSE, close_payload(1000, b"*" * 123))]], 1000),
        fail_case("7.3.6", "a close with a 124-byte reason (126 bytes of payload)", [["frame", frame(CLOSE, close_payload(1000, b"*" * 124))]]),
        fail_case("7.5.1", "a close whose reason is not UTF-8", [["frame", frame(CLOSE, close_payload(1000, "κόσμε".encode() + b"\xed\xa0\x80"))]],
                  EITHER),
    ]
    for index, code in enumerate(VALID_CLOSE_CODES, start=1):
        cases.append(close_case(f"7.7.{index}", f"close with valid code {code}", [["frame", frame(CLOSE, close_payload(code))]], code))
    for index, code in enumerate(INVALID_CLOSE_CODES, start=1):
        cases.append(fail_case(f"7.9.{index}", f"close with invalid code {code}", [["frame", frame(CLOSE, close_payload(code))]]))
    return cases


def section9():
    cases = []
    sizes = [64 << 10, 1 << 20, 4 << 20]
    for index, size in enumerate(sizes, start=1):
        payload = gen("text", size, index)
        cases.append(echo_case(f"9.1.{index}", f"a text message of {size} bytes", [["frame", frame(TEXT, payload)]], [msg("text", payload)], 30))
        payload = gen("binary", size, index)
        cases.append(echo_case(f"9.2.{index}", f"a binary message of {size} bytes", [["frame", frame(BINARY, payload)]], [msg("binary", payload)], 30))
    for kind, cid in [("text", "9.1.6"), ("binary", "9.2.6")]:
        payload = gen(kind, 16 << 20, 6)
        cases.append(echo_case(cid, f"a {kind} message of 16 MiB", [["frame", frame(TEXT if kind == "text" else BINARY, payload)]],
                               [msg(kind, payload)], 60))
    total = 4 << 20
    for index, fragment in enumerate([64, 4096, 65536, 1 << 20], start=1):
        for kind, section in [("text", "9.3"), ("binary", "9.4")]:
            payload = gen(kind, total, index)
            pieces = list(range(0, total, fragment))
            actions = [["frame", frame((TEXT if kind == "text" else BINARY) if start == 0 else CONT,
                                       gen(kind, total, index, start, start + fragment), fin=start + fragment >= total)] for start in pieces]
            cases.append(echo_case(f"{section}.{index}", f"a 4 MiB {kind} message in fragments of {fragment} bytes", actions,
                                   [msg(kind, payload)], 60))
    for index, chop in enumerate([64, 2048], start=1):
        for kind, section in [("text", "9.5"), ("binary", "9.6")]:
            payload = gen(kind, 256 << 10, index)
            cases.append(echo_case(f"{section}.{index}", f"a 256 KiB {kind} message written {chop} bytes at a time",
                                   [["chop", frame(TEXT if kind == "text" else BINARY, payload), chop * 50]], [msg(kind, payload)], 30))
    for index, size in enumerate([0, 16, 256, 4096], start=1):
        for kind, section in [("text", "9.7"), ("binary", "9.8")]:
            payloads = [gen(kind, size, i) for i in range(1000)]
            cases.append(echo_case(f"{section}.{index}", f"1000 {kind} messages of {size} bytes",
                                   [["frame", frame(TEXT if kind == "text" else BINARY, p)] for p in payloads],
                                   [msg(kind, p) for p in payloads], 30))
    return cases


def section10():
    total, fragment = 65536, 1300
    payload = gen("text", total, 10)
    actions = [["frame", frame(TEXT if start == 0 else CONT, gen("text", total, 10, start, min(total, start + fragment)),
                               fin=start + fragment >= total)] for start in range(0, total, fragment)]
    return [echo_case("10.1.1", "a 64 KiB text message in fragments of 1300 bytes", actions, [msg("text", payload)])]


# Section 12 and 13: messages sent through the library's own send, compressed by it.
DEFLATE_CONFIGS = {
    "default": {},
    "no-context": {"server_no_context_takeover": True, "client_no_context_takeover": True},
    "bits-9": {"server_max_window_bits": 9, "client_max_window_bits": 9},
    "bits-15": {"server_max_window_bits": 15, "client_max_window_bits": 15},
    "no-context-bits-9": {"server_no_context_takeover": True, "client_no_context_takeover": True,
                          "server_max_window_bits": 9, "client_max_window_bits": 9},
    "no-context-bits-15": {"server_no_context_takeover": True, "client_no_context_takeover": True,
                           "server_max_window_bits": 15, "client_max_window_bits": 15},
    "client-12-server-no-context": {"server_no_context_takeover": True, "client_max_window_bits": 12},
}


def deflate_sends(kind, size, count, seed):
    payloads = [gen(kind, size, seed + i) for i in range(count)]
    return [["send", "text" if kind == "text" else "binary", p] for p in payloads], [msg("text" if kind == "text" else "binary", p) for p in payloads]


def section12():
    cases = []
    sizes = [16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1 << 20]
    for group, kind in [("12.1", "text"), ("12.2", "binary"), ("12.3", "random")]:
        for index, size in enumerate(sizes, start=1):
            if kind == "random" and size > 262144:
                continue
            count = 10 if size <= 65536 else 3
            actions, messages = deflate_sends(kind, size, count, index)
            case = echo_case(f"{group}.{index}", f"{count} compressed {kind} messages of {size} bytes", actions, messages, 30)
            case["deflate"] = "default"
            case["compressed"] = True
            cases.append(case)
    return cases


def section13():
    cases = []
    for group, config in enumerate(DEFLATE_CONFIGS, start=1):
        for index, (kind, size, count) in enumerate([("text", 64, 20), ("text", 16384, 10), ("binary", 4096, 10), ("random", 65536, 4)], start=1):
            actions, messages = deflate_sends(kind, size, count, index)
            case = echo_case(f"13.{group}.{index}", f"permessage-deflate {config}: {count} {kind} messages of {size} bytes",
                             actions, messages, 30)
            case["deflate"] = config
            case["compressed"] = True
            cases.append(case)
    return cases


def hostile_deflate():
    """Ours: what a peer that negotiated permessage-deflate may still get wrong."""
    return [
        fail_case("12.9.1", "RSV1 on a message whose data is no deflate stream", [["frame", frame(BINARY, hexp(bytes([0x06, 0x07, 0x08])), rsv=4)]],
                  EITHER),
        fail_case("12.9.2", "RSV1 on a continuation frame",
                  [["frame", frame(TEXT, hexp("ab"), fin=False)], ["frame", frame(CONT, hexp("cd"), rsv=4)]], EITHER),
    ]


def all_cases():
    """Sections 1-7, 9 and 10: played with compression declined and with it accepted."""
    return section1() + section2() + section3() + section4() + section5() + section6() + section7() + section9() + section10()


def deflate_cases():
    """Sections 12 and 13 (and hostile_deflate): only where permessage-deflate is on."""
    return section12() + section13() + [dict(case, deflate="default") for case in hostile_deflate()]
