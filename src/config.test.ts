import fs from "node:fs";
import os from "node:os";
import path from "node:path";
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

  it("serves organizations by subdomain under a root domain its external URL is at", () => {
    expect(loadConfig({}).rootDomain).toBeUndefined();
    const config = loadConfig({ PARLEY_ROOT_DOMAIN: "Chat.Example.com" });
    expect(config.rootDomain).toBe("chat.example.com");
    expect(config.externalUrl).toBe("http://chat.example.com:9991");
    expect(loadConfig({ PARLEY_ROOT_DOMAIN: "chat.example.com", PARLEY_EXTERNAL_URL: "https://chat.example.com" }).externalUrl).toBe(
      "https://chat.example.com",
    );
    expect(() => loadConfig({ PARLEY_ROOT_DOMAIN: "chat.example.com", PARLEY_EXTERNAL_URL: "https://example.com" })).toThrow(/must be at the root domain/);
    expect(() => loadConfig({ PARLEY_ROOT_DOMAIN: "bad_domain..com" })).toThrow(ConfigError);
  });

  it("offers the organization sign-up page only when asked, and only with a root domain", () => {
    expect(loadConfig({}).organizationSignup).toBe(false);
    expect(loadConfig({ PARLEY_ROOT_DOMAIN: "chat.example.com" }).organizationSignup).toBe(false);
    expect(loadConfig({ PARLEY_ROOT_DOMAIN: "chat.example.com", PARLEY_ORGANIZATION_SIGNUP: "on" }).organizationSignup).toBe(true);
    expect(loadConfig({ PARLEY_ORGANIZATION_SIGNUP: "off" }).organizationSignup).toBe(false);
    expect(() => loadConfig({ PARLEY_ORGANIZATION_SIGNUP: "1" })).toThrow(
      /PARLEY_ORGANIZATION_SIGNUP: new organizations need subdomains of PARLEY_ROOT_DOMAIN/,
    );
    expect(() => loadConfig({ PARLEY_ROOT_DOMAIN: "chat.example.com", PARLEY_ORGANIZATION_SIGNUP: "maybe" })).toThrow(ConfigError);
  });

  it("stores uploads in a bucket only when the whole S3 configuration is given", () => {
    expect(loadConfig({}).uploads).toEqual({ maxFileSizeMib: 100, unclaimedDays: 21, s3: undefined });
    const s3 = {
      PARLEY_S3_BUCKET: "parley-files",
      PARLEY_S3_ENDPOINT: "http://127.0.0.1:9000",
      PARLEY_S3_ACCESS_KEY_ID: "id",
      PARLEY_S3_SECRET_ACCESS_KEY: "secret",
    };
    expect(loadConfig(s3).uploads.s3).toEqual({
      endpoint: "http://127.0.0.1:9000",
      bucket: "parley-files",
      region: "us-east-1",
      accessKeyId: "id",
      secretAccessKey: "secret",
    });
    expect(() => loadConfig({ PARLEY_EMAIL_GATEWAY_PORT: "2525" })).toThrow(/PARLEY_EMAIL_GATEWAY_PORT is set, so PARLEY_EMAIL_GATEWAY_DOMAIN must be set too/);
    expect(() => loadConfig({ PARLEY_EMAIL_GATEWAY_PORT: "2525", PARLEY_EMAIL_GATEWAY_DOMAIN: "not a domain" })).toThrow(ConfigError);
    expect(loadConfig({ PARLEY_EMAIL_GATEWAY_PORT: "2525", PARLEY_EMAIL_GATEWAY_DOMAIN: "Mail.Example.com", PARLEY_HOST: "127.0.0.1" }).emailGateway).toEqual({
      port: 2525,
      host: "127.0.0.1",
      domain: "mail.example.com",
    });
    expect(() => loadConfig({ PARLEY_S3_BUCKET: "parley-files" })).toThrow(
      /PARLEY_S3_ENDPOINT, PARLEY_S3_ACCESS_KEY_ID, PARLEY_S3_SECRET_ACCESS_KEY must be set too/,
    );
    expect(() => loadConfig({ ...s3, PARLEY_S3_BUCKET: "Not_A_Bucket" })).toThrow(ConfigError);
  });

  it("trusts X-Forwarded-For from the loopback addresses unless PARLEY_TRUSTED_PROXIES says otherwise", () => {
    expect(loadConfig({}).trustedProxies).toEqual(["127.0.0.1", "::1"]);
    expect(loadConfig({ PARLEY_TRUSTED_PROXIES: "10.0.0.0/8, 192.168.1.5,fd00::/8,loopback" }).trustedProxies).toEqual([
      "10.0.0.0/8",
      "192.168.1.5",
      "fd00::/8",
      "loopback",
    ]);
  });

  it("selects PostgreSQL from PARLEY_DATABASE_URL", () => {
    const config = loadConfig({ PARLEY_DATABASE_URL: "postgres://u@localhost/db" });
    expect(config.database).toEqual({ kind: "postgres", url: "postgres://u@localhost/db", preparedStatements: true });
    expect(loadConfig({ PARLEY_DATABASE_URL: "postgres://u@localhost/db", PARLEY_POSTGRES_PREPARED_STATEMENTS: "0" }).database).toEqual({
      kind: "postgres",
      url: "postgres://u@localhost/db",
      preparedStatements: false,
    });
  });

  it("turns on multi-process mode with PARLEY_BUS_URL, on PostgreSQL only", () => {
    expect(loadConfig({}).busUrl).toBeUndefined();
    expect(loadConfig({ PARLEY_DATABASE_URL: "postgres://u@localhost/db", PARLEY_BUS_URL: "nats://127.0.0.1:4222" }).busUrl).toBe("nats://127.0.0.1:4222");
    expect(() => loadConfig({ PARLEY_BUS_URL: "nats://127.0.0.1:4222" })).toThrow(/PARLEY_BUS_URL: several processes need PostgreSQL/);
    expect(() => loadConfig({ PARLEY_DATABASE_URL: "postgres://u@localhost/db", PARLEY_BUS_URL: "redis://x" })).toThrow(/PARLEY_BUS_URL/);
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
    ["PARLEY_POSTGRES_PREPARED_STATEMENTS", "sometimes"],
    ["PARLEY_ADMIN_EMAIL", "nobody"],
    ["PARLEY_ADMIN_PASSWORD", "123"],
    ["PARLEY_TRUSTED_PROXIES", "proxy.example"],
    ["PARLEY_TRUSTED_PROXIES", "10.0.0.0/33"],
    ["PARLEY_TRUSTED_PROXIES", "10.0.0.1,"],
  ])("rejects %s=%s naming the variable", (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(name);
  });

  it.each(["PARLEY_PORT", "PARLEY_DATA_DIR", "PARLEY_DEV", "PARLEY_OUTGOING_HTTP_ALLOW_HOSTS", "PARLEY_DATABASE_URL"])(
    "refuses %s set to nothing instead of using the default",
    (name) => {
      expect(() => loadConfig({ [name]: "" })).toThrow(`${name}: is set but empty (unset it to use the default)`);
      expect(() => loadConfig({ [name]: "  " })).toThrow(ConfigError);
    },
  );

  it("refuses partial push settings and key files it cannot read", () => {
    expect(() => loadConfig({ PARLEY_PUSH_BOUNCER_URL: "https://push.zulipchat.com" })).toThrow(
      "PARLEY_PUSH_BOUNCER_URL is set, so PARLEY_PUSH_ORG_ID, PARLEY_PUSH_ORG_KEY must be set too",
    );
    expect(() => loadConfig({ PARLEY_PUSH_ORG_ID: "id", PARLEY_PUSH_ORG_KEY: "key" })).toThrow("so PARLEY_PUSH_BOUNCER_URL must be set too");
    expect(loadConfig({ PARLEY_PUSH_BOUNCER_URL: "https://push.zulipchat.com", PARLEY_PUSH_ORG_ID: "id", PARLEY_PUSH_ORG_KEY: "key" }).pushBouncer).toEqual({
      url: "https://push.zulipchat.com",
      orgId: "id",
      orgKey: "key",
    });

    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "parley-config-"));
    const key = path.join(dir, "AuthKey.p8");
    fs.writeFileSync(key, "key");
    expect(() => loadConfig({ PARLEY_APNS_KEY_FILE: key, PARLEY_APNS_KEY_ID: "KEY" })).toThrow("so PARLEY_APNS_TEAM_ID must be set too");
    const missing = path.join(dir, "missing.p8");
    expect(() => loadConfig({ PARLEY_APNS_KEY_FILE: missing, PARLEY_APNS_KEY_ID: "KEY", PARLEY_APNS_TEAM_ID: "TEAM" })).toThrow(
      `PARLEY_APNS_KEY_FILE: cannot read ${missing}`,
    );
    expect(loadConfig({ PARLEY_APNS_KEY_FILE: key, PARLEY_APNS_KEY_ID: "KEY", PARLEY_APNS_TEAM_ID: "TEAM" }).apns?.keyFile).toBe(key);
    expect(() => loadConfig({ PARLEY_FCM_CREDENTIALS_FILE: path.join(dir, "nope.json") })).toThrow("PARLEY_FCM_CREDENTIALS_FILE: cannot read");
    expect(() => loadConfig({ PARLEY_FCM_CREDENTIALS_FILE: dir })).toThrow("PARLEY_FCM_CREDENTIALS_FILE: cannot read");
    fs.rmSync(dir, { recursive: true });
  });

  it("allows uploads to a bucket beyond what S3 takes in one request (5 GB): they go in parts", () => {
    const s3 = {
      PARLEY_S3_BUCKET: "parley-files",
      PARLEY_S3_ENDPOINT: "http://127.0.0.1:9000",
      PARLEY_S3_ACCESS_KEY_ID: "id",
      PARLEY_S3_SECRET_ACCESS_KEY: "secret",
    };
    expect(loadConfig({ ...s3, PARLEY_MAX_FILE_UPLOAD_SIZE_MIB: "10240" }).uploads.maxFileSizeMib).toBe(10240);
    expect(loadConfig({ PARLEY_MAX_FILE_UPLOAD_SIZE_MIB: "10240" }).uploads.maxFileSizeMib).toBe(10240);
  });
});
