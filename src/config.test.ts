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

  it("stores uploads in a bucket only when the whole S3 configuration is given", () => {
    expect(loadConfig({}).uploads).toEqual({ maxFileSizeMib: 100, unclaimedDays: 21, s3: undefined });
    const s3 = { PARLEY_S3_BUCKET: "parley-files", PARLEY_S3_ENDPOINT: "http://127.0.0.1:9000", PARLEY_S3_ACCESS_KEY_ID: "id", PARLEY_S3_SECRET_ACCESS_KEY: "secret" };
    expect(loadConfig(s3).uploads.s3).toEqual({ endpoint: "http://127.0.0.1:9000", bucket: "parley-files", region: "us-east-1", accessKeyId: "id", secretAccessKey: "secret" });
    expect(() => loadConfig({ PARLEY_S3_BUCKET: "parley-files" })).toThrow(/PARLEY_S3_ENDPOINT, PARLEY_S3_ACCESS_KEY_ID, PARLEY_S3_SECRET_ACCESS_KEY must be set too/);
    expect(() => loadConfig({ ...s3, PARLEY_S3_BUCKET: "Not_A_Bucket" })).toThrow(ConfigError);
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
