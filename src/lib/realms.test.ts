import { describe, expect, it } from "vitest";
import { realmServesHost, realmUrl, subdomainOfHost } from "./realms.js";

describe("organizations by host", () => {
  it("reads the subdomain before the root domain, ignoring the port and case", () => {
    expect(subdomainOfHost("acme.chat.example.com", "chat.example.com")).toBe("acme");
    expect(subdomainOfHost("ACME.Chat.Example.com:8443", "chat.example.com")).toBe("acme");
    expect(subdomainOfHost("chat.example.com", "chat.example.com")).toBe("");
    expect(subdomainOfHost("www.chat.example.com", "chat.example.com")).toBe("");
    expect(subdomainOfHost("evilchat.example.com", "chat.example.com")).toBe("");
    expect(subdomainOfHost("[::1]:9991", "chat.example.com")).toBe("");
    expect(subdomainOfHost("acme.chat.example.com.", "chat.example.com")).toBe("acme");
  });

  it("matches an organization to its host only when there is a root domain", () => {
    const acme = { string_id: "acme" };
    expect(realmServesHost({ rootDomain: undefined }, acme, "anything:1")).toBe(true);
    expect(realmServesHost({ rootDomain: "chat.example.com" }, acme, "acme.chat.example.com")).toBe(true);
    expect(realmServesHost({ rootDomain: "chat.example.com" }, acme, "chat.example.com")).toBe(false);
    expect(realmServesHost({ rootDomain: "chat.example.com" }, { string_id: "" }, "chat.example.com:443")).toBe(true);
    expect(realmServesHost({ rootDomain: "chat.example.com" }, acme, undefined)).toBe(false);
  });

  it("builds an organization's URL on the external URL's scheme and port", () => {
    const config = { externalUrl: "https://chat.example.com:8443", rootDomain: "chat.example.com" };
    expect(realmUrl(config, { string_id: "acme" })).toBe("https://acme.chat.example.com:8443");
    expect(realmUrl(config, { string_id: "" })).toBe("https://chat.example.com:8443");
    expect(realmUrl({ externalUrl: "http://localhost:9991", rootDomain: undefined }, { string_id: "acme" })).toBe("http://localhost:9991");
  });
});
