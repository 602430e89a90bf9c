#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Reference frames for orca_soft_net_test.c.

The two packets of orca_icrc_vectors.py as orca_soft sends them: the
IPv4 one with IP ID 0 (orca_soft sets DF and no ID), the IPv6 one with a
real UDP checksum (RFC 8200; the ICRC does not cover it, so the ICRC is
that of orca_icrc_vectors.py).  Each is preceded by its Ethernet header,
02:00:00:00:00:02 <- 02:00:00:00:00:01.  Nothing here is shared with the
C code under test: the headers are packed with struct, the checksums
computed below, the ICRCs by orca_icrc_vectors.icrc() (zlib.crc32).

Run it with python3 (no arguments): it prints the C arrays of the suite.
"""

import struct

import orca_icrc_vectors as ref

DMAC = bytes.fromhex("020000000002")
SMAC = bytes.fromhex("020000000001")


def ones_sum(data):
    if len(data) % 2:
        data += b"\0"
    s = 0
    for i in range(0, len(data), 2):
        s += (data[i] << 8) | data[i + 1]
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return s


def udp6_checksum(pkt):
    """The UDP checksum of an IPv6 packet with no extension header."""
    src, dst = pkt[8:24], pkt[24:40]
    udp = bytearray(pkt[40:])
    udp[6:8] = b"\0\0"
    pseudo = src + dst + struct.pack("!IxxxB", len(udp), 17)
    c = ~ones_sum(pseudo + bytes(udp)) & 0xffff
    return c or 0xffff


def frames():
    (n4, _, pkt4, _), (n6, _, pkt6, crc6) = ref.vectors()

    # IPv4: ID 0, so a new header checksum and a new ICRC.
    p = bytearray(pkt4[:-4])
    p[4:6] = b"\0\0"
    p[10:12] = b"\0\0"
    struct.pack_into("!H", p, 10, ref.ipv4_checksum(bytes(p[:20])))
    crc4 = ref.icrc(bytes(p), 4)
    v4 = DMAC + SMAC + b"\x08\x00" + bytes(p) + struct.pack("<I", crc4)

    # IPv6: the UDP checksum; the ICRC does not change.
    p = bytearray(pkt6)
    assert ref.icrc(bytes(p[:-4]), 6) == crc6
    struct.pack_into("!H", p, 46, udp6_checksum(bytes(p)))
    v6 = DMAC + SMAC + b"\x86\xdd" + bytes(p)
    return [(n4, v4, crc4), (n6, v6, crc6)]


def main():
    for name, frame, crc in frames():
        print(f"/* {name}: {len(frame)} bytes, ICRC 0x{crc:08x} */")
        print(f"static const u8 orca_net_frame_{name}[] = {{")
        for i in range(0, len(frame), 8):
            row = ", ".join(f"0x{b:02x}" for b in frame[i:i + 8])
            print(f"\t{row},")
        print("};")
        print()


if __name__ == "__main__":
    main()
