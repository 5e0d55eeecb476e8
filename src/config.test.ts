import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "./config.js";

describe("loadConfig", () => {
  it("gives a working single-machine default", () => {
    const config = loadConfig({});
    expect(config.port).toBe(9991);
    expect(config.database.kind).toBe("sqlite");
    expect(config.externalUrl).toBe("http://localhost:9991");
    expect(config.dev).toBe(false);
    expect(config.database.kind === "sqlite" && config.database.synchronous).toBe("FULL");
  });

  it("selects PostgreSQL from PARLEY_DATABASE_URL", () => {
    const config = loadConfig({ PARLEY_DATABASE_URL: "postgres://u@localhost/db" });
    expect(config.database).toEqual({ kind: "postgres", url: "postgres://u@localhost/db" });
  });

  it.each([
    ["PARLEY_PORT", "abc"],
    ["PARLEY_PORT", "70000"],
    ["PARLEY_DATABASE_URL", "mysql://x"],
    ["PARLEY_EXTERNAL_URL", "not a url"],
    ["PARLEY_DEV", "maybe"],
    ["PARLEY_SMTP_URL", "http://mail"],
    ["PARLEY_LOG_LEVEL", "loud"],
    ["PARLEY_SQLITE_SYNCHRONOUS", "OFF"],
    ["PARLEY_ADMIN_EMAIL", "nobody"],
    ["PARLEY_ADMIN_PASSWORD", "123"],
  ])("rejects %s=%s naming the variable", (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(name);
  });
});
