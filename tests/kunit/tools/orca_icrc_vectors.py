#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Reference RoCEv2 packets and their ICRCs for orca_soft_wire_test.c.

An implementation of the RoCEv2 invariant CRC that shares nothing with
drivers/orca_soft/orca_soft_wire.c: the packets are assembled here from
their fields with struct.pack, and the ICRC is zlib's CRC-32 over the
pseudo-packet of IBTA Annex A17:

  8 bytes of 0xff (the LRH an InfiniBand packet would have), then
  the IP header with its variant fields set to all ones
    (IPv4: TOS, TTL, header checksum;
     IPv6: traffic class, flow label, hop limit),
  the UDP header with its checksum set to all ones,
  the BTH with its byte 4 (FECN, BECN, reserved) set to all ones,
  and the rest of the packet up to the ICRC.

The 32-bit result is appended least significant byte first.

Run it with python3 (no arguments): it prints the C arrays that the
KUnit suite holds.  When scapy is importable it also checks every ICRC
against scapy's RoCE layer (scapy.contrib.roce), a third implementation.
"""

import struct
import zlib

UDP_DPORT = 4791


def ipv4_checksum(hdr):
    s = 0
    for i in range(0, len(hdr), 2):
        s += (hdr[i] << 8) | hdr[i + 1]
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def ipv4_header(src, dst, tos, ttl, ident, payload_len):
    hdr = bytearray(struct.pack("!BBHHHBBH4s4s", 0x45, tos, 20 + payload_len,
                                ident, 0x4000, ttl, 17, 0,
                                bytes(src), bytes(dst)))
    struct.pack_into("!H", hdr, 10, ipv4_checksum(hdr))
    return bytes(hdr)


def ipv6_header(src, dst, tclass, flow, hop, payload_len):
    word0 = (6 << 28) | (tclass << 20) | flow
    return struct.pack("!IHBB16s16s", word0, payload_len, 17, hop,
                       bytes(src), bytes(dst))


def udp_header(sport, length, csum=0):
    return struct.pack("!HHHH", sport, UDP_DPORT, length, csum)


def bth(opcode, se, mig, pad, pkey, fecn, becn, qpn, ackreq, psn):
    flags = (se << 7) | (mig << 6) | (pad << 4)
    word1 = (fecn << 31) | (becn << 30) | qpn
    word2 = (ackreq << 31) | psn
    return struct.pack("!BBHII", opcode, flags, pkey, word1, word2)


def icrc(pkt, ip_version):
    """ICRC of pkt: IP header .. end of payload and pad (no ICRC)."""
    p = bytearray(pkt)
    if ip_version == 4:
        iplen = 20
        p[1] = 0xff                 # TOS (DSCP, ECN)
        p[8] = 0xff                 # TTL
        p[10:12] = b"\xff\xff"      # header checksum
    else:
        iplen = 40
        p[0] |= 0x0f                # traffic class, high nibble
        p[1:4] = b"\xff\xff\xff"    # traffic class low nibble, flow label
        p[7] = 0xff                 # hop limit
    p[iplen + 6:iplen + 8] = b"\xff\xff"    # UDP checksum
    p[iplen + 8 + 4] = 0xff                 # BTH byte 4
    return zlib.crc32(b"\xff" * 8 + bytes(p)) & 0xffffffff


def packet(ip_version, ip_args, sport, transport, payload):
    pad = -len(payload) % 4
    body = transport + payload + b"\0" * pad
    udp_len = 8 + len(body) + 4
    if ip_version == 4:
        ip = ipv4_header(*ip_args, payload_len=udp_len)
    else:
        ip = ipv6_header(*ip_args, payload_len=udp_len)
    pkt = ip + udp_header(sport, udp_len) + body
    crc = icrc(pkt, ip_version)
    return pkt + struct.pack("<I", crc), crc


def vectors():
    v = []
    # 1. IPv4, RC SEND ONLY, 13 bytes of payload (pad 3), SE and AckReq,
    #    ECT(0) in the TOS and BECN set: both are masked out.
    payload = b"Hello, Orca!\n"
    t = bth(0x04, 1, 0, -len(payload) % 4, 0xffff, 0, 1, 0x000012, 1,
            0x00abcd)
    pkt, crc = packet(4, ([192, 168, 10, 1], [192, 168, 10, 2], 0x02, 64,
                          0x1234), 0xc123, t, payload)
    v.append(("ipv4_rc_send_only", 4, pkt, crc))

    # 2. IPv6, UD SEND ONLY with immediate: DETH (Q_Key 0x11223344,
    #    source QP 0x000def), ImmDt 0xdeadbeef, 10 bytes (pad 2).
    payload = bytes(range(0xa0, 0xaa))
    t = bth(0x65, 0, 1, -len(payload) % 4, 0x8001, 0, 0, 0x000abc, 0,
            0x123456)
    t += struct.pack("!II", 0x11223344, 0x000def)
    t += struct.pack("!I", 0xdeadbeef)
    src = bytes.fromhex("fe80000000000000021122fffe334455")
    dst = bytes.fromhex("fe80000000000000021122fffe336677")
    pkt, crc = packet(6, (src, dst, 0x60, 0x12345, 64), 0xd00d, t, payload)
    v.append(("ipv6_ud_send_only_imm", 6, pkt, crc))
    return v


def scapy_icrc(pkt):
    """scapy's ICRC of an IPv4 packet (scapy 2.5 has none for IPv6)."""
    # pylint: disable=import-outside-toplevel
    from scapy.layers.inet import IP
    from scapy.contrib.roce import BTH  # binds UDP port 4791 to BTH
    p = IP(pkt)
    return struct.unpack("<I", p[BTH].compute_icrc(b""))[0]


def main():
    try:
        import scapy  # noqa: F401 pylint: disable=import-outside-toplevel,unused-import
        have_scapy = True
    except ImportError:
        have_scapy = False
    for name, ipv, pkt, crc in vectors():
        print(f"/* {name}: {len(pkt)} bytes, ICRC 0x{crc:08x} */")
        print(f"static const u8 orca_wire_pkt_{name}[] = {{")
        for i in range(0, len(pkt), 8):
            row = ", ".join(f"0x{b:02x}" for b in pkt[i:i + 8])
            print(f"\t{row},")
        print("};")
        if have_scapy and ipv == 4:
            theirs = scapy_icrc(pkt)
            status = "agrees" if theirs == crc else f"DISAGREES 0x{theirs:08x}"
            print(f"/* scapy: {status} */")
        print()


if __name__ == "__main__":
    main()
