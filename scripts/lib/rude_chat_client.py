"""A chat client that breaks the example chat server's rules, over a raw WebSocket, and checks
that each is refused clearly while the socket or the server survives as it should.

    python3 scripts/lib/rude_chat_client.py rules CHAT_PORT ACCESS_TOKEN OTHER_USERS_TOKEN MAX_SOCKETS_PER_USER
    python3 scripts/lib/rude_chat_client.py idle CHAT_PORT ACCESS_TOKEN IDLE_SECONDS

`idle` checks that a connection that sends nothing and a socket that never answers pings are
closed after IDLE_SECONDS (the chat server's --idle-timeout). `rules` checks, in order: no token and a forged token are refused at the upgrade (400: hummingbird-websocket
answers every refused upgrade so, without the middleware's 401 and its reason); with a valid
token the socket is welcomed; a frame that is not JSON and a message over 2 000 bytes each get an
error frame and the socket stays open; a frame over 16 KiB closes the socket (1009); a flood of
frames gets one "slow down" and the socket is served again once it stops; a user's socket past
MAX_SOCKETS_PER_USER is closed at once with 4009; and another user's sockets, once the server
holds its --max-sockets (the demo sets it low), are closed at once with 1013. The first token's
user must have no socket open, and fewer than MAX_SOCKETS_PER_USER may be left under the server's
cap for the second. Prints one line per check; exits 1 at the first that fails.
"""
import base64
import json
import os
import socket
import struct
import sys
import time


def fail(message: str) -> None:
    print(f"rude client: FAILED: {message}")
    sys.exit(1)


def upgrade(port: int, token: str | None) -> tuple[int, socket.socket]:
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    key = base64.b64encode(os.urandom(16)).decode()
    lines = [
        "GET /rooms/general HTTP/1.1", f"Host: 127.0.0.1:{port}", "Upgrade: websocket", "Connection: Upgrade",
        f"Sec-WebSocket-Key: {key}", "Sec-WebSocket-Version: 13",
    ]
    if token is not None:
        lines.append(f"Authorization: Bearer {token}")
    sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
    # Byte by byte, so that no frame sent right after the head is read along with it.
    head = b""
    while not head.endswith(b"\r\n\r\n"):
        byte = sock.recv(1)
        if not byte:
            break
        head += byte
    status = int(head.split(b" ", 2)[1]) if head.startswith(b"HTTP/1.1 ") else 0
    return status, sock


def send(sock: socket.socket, payload: bytes, opcode: int = 1) -> None:
    header = bytes([0x80 | opcode])
    size = len(payload)
    if size < 126:
        header += bytes([0x80 | size])
    elif size < 65536:
        header += bytes([0x80 | 126]) + struct.pack("!H", size)
    else:
        header += bytes([0x80 | 127]) + struct.pack("!Q", size)
    mask = os.urandom(4)
    sock.sendall(header + mask + bytes(byte ^ mask[index % 4] for index, byte in enumerate(payload)))


def exactly(sock: socket.socket, count: int) -> bytes:
    data = b""
    while len(data) < count:
        chunk = sock.recv(count - len(data))
        if not chunk:
            raise ConnectionError("closed")
        data += chunk
    return data


def receive(sock: socket.socket) -> tuple[int, bytes]:
    first, second = exactly(sock, 2)
    size = second & 0x7F
    if size == 126:
        size = struct.unpack("!H", exactly(sock, 2))[0]
    elif size == 127:
        size = struct.unpack("!Q", exactly(sock, 8))[0]
    return first & 0x0F, exactly(sock, size)


def next_text(sock: socket.socket) -> dict:
    while True:
        opcode, payload = receive(sock)
        if opcode == 1:
            return json.loads(payload)
        if opcode == 8:
            raise ConnectionError(f"closed with {struct.unpack('!H', payload[:2])[0] if len(payload) >= 2 else None}")


def first_answer(sock: socket.socket) -> tuple[str, object]:
    """What a fresh socket hears first: ("welcome", frame) or ("close", code)."""
    opcode, payload = receive(sock)
    if opcode == 8:
        return "close", struct.unpack("!H", payload[:2])[0] if len(payload) >= 2 else None
    frame = json.loads(payload)
    return frame.get("type"), frame


def open_until_refused(port: int, token: str, limit: int) -> tuple[list[socket.socket], object]:
    """Opens sockets with `token` until one is closed at once (or `limit` are open); returns the
    open ones and the refusal's close code (None if none was refused)."""
    opened = []
    while len(opened) <= limit:
        status, sock = upgrade(port, token)
        if status != 101:
            fail(f"socket {len(opened) + 1}: the upgrade answered {status}, not 101")
        kind, detail = first_answer(sock)
        if kind == "close":
            sock.close()
            return opened, detail
        if kind != "welcome":
            fail(f"socket {len(opened) + 1}: first heard {detail}")
        opened.append(sock)
    return opened, None


def idle(port: int, token: str, idle_seconds: float) -> None:
    """A connection that never sends its request, and a room socket that never answers the
    server's pings, are each closed once idle_seconds have passed without a byte from them."""
    silent = socket.create_connection(("127.0.0.1", port), timeout=idle_seconds + 5)
    status, deaf = upgrade(port, token)
    if status != 101 or next_text(deaf).get("type") != "welcome":
        fail("the socket that will not answer pings was not welcomed")
    started = time.monotonic()
    deaf.settimeout(idle_seconds + 5)
    pings = 0
    try:
        while (opcode := receive(deaf)[0]) != 8:
            pings += opcode == 9
    except (ConnectionError, socket.timeout) as error:
        fail(f"a socket that never answers pings: no close frame within {idle_seconds + 5} s ({error})")
    if pings == 0:
        fail("a socket that never answers pings was closed without being pinged")
    print(f"   a socket that never answers pings: closed after {pings} of them ({time.monotonic() - started:.1f} s)")
    try:
        if silent.recv(1) != b"":
            fail("a connection that sent nothing got an answer")
    except socket.timeout:
        fail(f"a connection that sent nothing is still open after {time.monotonic() - started:.1f} s")
    print(f"   a connection that sends nothing: closed after {idle_seconds:g} s of silence")
    silent.close()
    deaf.close()


def flood(port: int, token: str) -> socket.socket:
    status, sock = upgrade(port, token)
    if status != 101 or next_text(sock).get("type") != "welcome":
        fail("the flooding socket was not welcomed")
    for _ in range(200):
        send(sock, b"flood")
    reasons = []
    while not any(reason.startswith("slow down") for reason in reasons):
        answer = next_text(sock)
        if answer.get("type") != "error":
            fail(f"a flood of frames was answered {answer}")
        reasons.append(answer["reason"])
    if len(reasons) > 200:
        fail(f"{len(reasons)} error frames for 200 frames sent")
    print(f"   200 frames at once: {len(reasons) - 1} answered, then \"{reasons[-1]}\"")
    time.sleep(2.5)
    send(sock, json.dumps({"type": "say", "text": ""}).encode())
    while (answer := next_text(sock)).get("reason", "").startswith(("not a frame", "slow down")):
        pass
    if not answer.get("reason", "").startswith("a message is"):
        fail(f"after the flood, a frame was answered {answer}")
    print("   once the flood stops, its frames are served again")
    return sock


def main() -> None:
    if sys.argv[1] == "idle":
        idle(int(sys.argv[2]), sys.argv[3], float(sys.argv[4]))
        return
    port, token, other_token, per_user = int(sys.argv[2]), sys.argv[3], sys.argv[4], int(sys.argv[5])
    for label, candidate in (("no token", None), ("a forged token", token[:-4] + "AAAA")):
        status, sock = upgrade(port, candidate)
        sock.close()
        if status != 400:
            fail(f"{label}: the upgrade answered {status}, not 400")
        print(f"   {label}: the upgrade is refused (400)")
    status, sock = upgrade(port, token)
    if status != 101:
        fail(f"a valid token: the upgrade answered {status}, not 101")
    if next_text(sock).get("type") != "welcome":
        fail("no welcome")
    print("   a valid token: welcomed")
    send(sock, b"not json at all")
    answer = next_text(sock)
    if answer.get("type") != "error":
        fail(f"a frame that is not JSON was answered {answer}")
    print(f"   a frame that is not JSON: {answer['reason']}")
    send(sock, json.dumps({"type": "say", "text": "x" * 3000}).encode())
    answer = next_text(sock)
    if answer.get("type") != "error":
        fail(f"a message over 2 000 bytes was answered {answer}")
    print(f"   a message over 2 000 bytes: {answer['reason']}")
    send(sock, json.dumps({"type": "say", "text": "y" * 20000}).encode())
    try:
        while True:
            opcode, payload = receive(sock)
            if opcode == 8:
                code = struct.unpack("!H", payload[:2])[0] if len(payload) >= 2 else None
                if code != 1009:
                    fail(f"a frame over 16 KiB closed the socket with {code}, not 1009")
                print("   a frame over 16 KiB: the socket is closed (1009, too big)")
                break
    except (ConnectionError, socket.timeout) as error:
        fail(f"a frame over 16 KiB: no close frame ({error})")
    sock.close()

    flooding = flood(port, token)
    opened, code = open_until_refused(port, token, per_user)
    if code != 4009 or len(opened) + 1 != per_user:
        fail(f"the user's socket {len(opened) + 2} was refused with {code} (4009 expected past {per_user})")
    print(f"   the user's socket {per_user + 1}: closed at once (4009, {per_user} a user)")
    others, code = open_until_refused(port, other_token, per_user)
    if code != 1013 or len(others) >= per_user:
        fail(f"another user's socket {len(others) + 1} was refused with {code} (1013 expected at the server's cap)")
    print(f"   another user's socket {len(others) + 1}, the server being full: closed at once (1013, try again later)")
    for sock in [flooding, *opened, *others]:
        sock.close()


if __name__ == "__main__":
    main()
