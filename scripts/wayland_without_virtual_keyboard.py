#!/usr/bin/env python3
"""A stand-in Wayland compositor that offers a seat and nothing else: no virtual-keyboard
protocol, as GNOME's and KDE's compositors. It speaks just enough of the wire protocol for a
client to connect, list the globals and bind the seat, so the typing tests can watch the real
wtype refuse.

    wayland_without_virtual_keyboard.py SOCKET    listens on SOCKET (an absolute path) until
                                                  killed; prints "ready" once it listens.
"""
import os
import socket
import struct
import sys
import threading

DISPLAY = 1  # wl_display is always object 1


def message(object_id, opcode, payload=b""):
    return struct.pack("<II", object_id, (8 + len(payload)) << 16 | opcode) + payload


def string(text):
    data = text.encode() + b"\0"
    return struct.pack("<I", len(data)) + data + b"\0" * (-len(data) % 4)


def serve(connection):
    buffer = b""
    serial = 0
    with connection:
        while True:
            data = connection.recv(4096)
            if not data:
                return
            buffer += data
            while len(buffer) >= 8:
                object_id, word = struct.unpack_from("<II", buffer)
                size, opcode = word >> 16, word & 0xFFFF
                if size < 8 or len(buffer) < size:
                    break
                body, buffer = buffer[8:size], buffer[size:]
                if object_id == DISPLAY and opcode == 0:  # sync(callback)
                    (callback,) = struct.unpack_from("<I", body)
                    serial += 1
                    connection.sendall(
                        message(callback, 0, struct.pack("<I", serial))  # wl_callback.done
                        + message(DISPLAY, 1, struct.pack("<I", callback))  # delete_id
                    )
                elif object_id == DISPLAY and opcode == 1:  # get_registry(registry)
                    (registry,) = struct.unpack_from("<I", body)
                    # wl_registry.global(name, interface, version)
                    connection.sendall(
                        message(registry, 0, struct.pack("<I", 1) + string("wl_seat")
                                + struct.pack("<I", 7)))
                # Anything else (binding the seat, releasing objects) needs no answer here.


def main():
    path = sys.argv[1]
    if os.path.exists(path):
        os.unlink(path)
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(path)
    server.listen(8)
    print("ready", flush=True)
    while True:
        connection, _ = server.accept()
        threading.Thread(target=serve, args=(connection,), daemon=True).start()


if __name__ == "__main__":
    main()
