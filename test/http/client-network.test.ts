// The client a per-address limit counts: IPv4 addresses as they are, IPv6 addresses by their /64.
import { describe, expect, test } from "bun:test";
import { clientNetwork } from "../../src/http/client-ip";

describe("clientNetwork", () => {
  test("IPv4, and IPv4 mapped into IPv6, is the address", () => {
    expect(clientNetwork("203.0.113.9")).toBe("203.0.113.9");
    expect(clientNetwork("::ffff:203.0.113.9")).toBe("203.0.113.9");
  });

  test("every address of one IPv6 /64 is one client, however it is written", () => {
    const one = clientNetwork("2001:db8:1:2::1");
    expect(one).toBe("2001:db8:1:2::/64");
    for (const other of ["2001:db8:1:2:ffff:ffff:ffff:fffe", "2001:0DB8:0001:0002:0:0:0:7", "2001:db8:1:2::1%eth0"]) expect(clientNetwork(other)).toBe(one);
    expect(clientNetwork("2001:db8:1:3::1")).not.toBe(one);
    expect(clientNetwork("2001:db8::1")).toBe("2001:db8:0:0::/64");
    expect(clientNetwork("::1")).toBe("0:0:0:0::/64");
  });
});
