import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import * as z from "zod";
import { type AuthSettings, NO_AUTH_SETTINGS, readAuthSettings } from "./auth/settings.js";
import type { S3Settings } from "./blobs/s3.js";
import type { ApnsSettings } from "./lib/apns.js";
import type { FcmSettings } from "./lib/fcm.js";

/**
 * Parley's configuration: PARLEY_* environment variables, read and validated once at start.
 * A bad value stops the process with a message naming the variable (see ConfigError).
 */

const boolFlag = z.enum(["1", "0", "true", "false", "yes", "no", "on", "off"]).transform((v) => ["1", "true", "yes", "on"].includes(v));

const envSchema = z.object({
  PARLEY_HOST: z.string().min(1).default("0.0.0.0"),
  PARLEY_PORT: z.coerce.number().int().min(0).max(65535).default(9991),
  PARLEY_DATA_DIR: z.string().min(1).default("./data"),
  PARLEY_DATABASE_URL: z
    .string()
    .regex(/^(postgres(ql)?:\/\/|sqlite:)/, "must start with postgres:// or sqlite:")
    .optional(),
  PARLEY_BUS_URL: z
    .string()
    .regex(/^nats:\/\/[^/]+\/?$/, "must be nats://host:port (with user:password@ if the server wants them)")
    .optional(),
  PARLEY_PROCESS_ID: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,40}$/, "must be 1 to 40 letters, digits, - or _")
    .optional(),
  PARLEY_DATABASE_TIMEOUT_SECONDS: z.coerce.number().min(0.1).max(600).default(10),
  PARLEY_EXTERNAL_URL: z.url({ protocol: /^https?$/ }).optional(),
  PARLEY_ROOT_DOMAIN: z
    .string()
    .toLowerCase()
    .regex(/^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/, "a host name like chat.example.com")
    .optional(),
  /** Anyone may create an organization at /new/ on the root domain (Zulip's OPEN_REALM_CREATION). */
  PARLEY_ORGANIZATION_SIGNUP: boolFlag.default(false),
  PARLEY_DEV: boolFlag.default(false),
  PARLEY_SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\//, "must start with smtp:// or smtps://")
    .optional(),
  PARLEY_EMAIL_FROM: z.string().min(3).optional(),
  PARLEY_LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  PARLEY_SQLITE_SYNCHRONOUS: z.enum(["FULL", "NORMAL"]).default("FULL"),
  PARLEY_POSTGRES_PREPARED_STATEMENTS: boolFlag.default(true),
  /** SQLite connections in worker threads (db/sqliteThreads.ts); 0: one in the main thread; unset: db/connect.ts's default. */
  PARLEY_SQLITE_THREADS: z.coerce.number().int().min(0).max(8).optional(),
  /** The identity providers (OIDC, GitHub, GitLab, Google, SAML, LDAP): a JSON file, src/auth/settings.ts. */
  PARLEY_AUTH_FILE: z.string().min(1).optional(),
  /** Zulip's TWO_FACTOR_AUTHENTICATION_ENABLED: users may add a TOTP second factor to password login. */
  PARLEY_TWO_FACTOR: boolFlag.default(true),
  PARLEY_ADMIN_EMAIL: z.email().optional(),
  PARLEY_ADMIN_PASSWORD: z.string().min(6).max(100).optional(),
  PARLEY_ORGANIZATION_NAME: z.string().min(1).max(40).default("Parley"),
  PARLEY_RATE_LIMITS: boolFlag.default(true),
  PARLEY_METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  PARLEY_METRICS_HOST: z.string().min(1).default("127.0.0.1"),
  PARLEY_METRICS_TOKEN: z.string().min(16, "must be at least 16 characters").optional(),
  PARLEY_TRUSTED_PROXIES: z
    .string()
    .default("127.0.0.1,::1")
    .transform((v) => v.split(",").map((p) => p.trim()))
    .refine((list) => list.every(isProxyAddress), "must be comma-separated IP addresses or CIDR ranges (e.g. 10.0.0.0/8), or loopback, linklocal, uniquelocal"),
  PARLEY_EVENT_QUEUE_TIMEOUT_SECONDS: z.coerce.number().int().min(10).default(600),
  PARLEY_EVENT_HEARTBEAT_SECONDS: z.coerce.number().min(0.05).max(300).default(45),
  PARLEY_MAX_FILE_UPLOAD_SIZE_MIB: z.coerce.number().int().min(1).max(10240).default(100),
  PARLEY_UNCLAIMED_UPLOAD_DAYS: z.coerce.number().min(0.0001).max(3650).default(21),
  /** A claimed job whose process died is taken again after this long; longer than any job runs. */
  PARLEY_JOB_LEASE_SECONDS: z.coerce.number().int().min(5).max(86400).default(120),
  PARLEY_JOB_RETENTION_DAYS: z.coerce.number().min(0.00001).max(3650).default(14),
  PARLEY_OUTGOING_WEBHOOK_TIMEOUT_SECONDS: z.coerce.number().min(0.1).max(120).default(10),
  PARLEY_OUTGOING_HTTP_ALLOW_HOSTS: z.string().default(""),
  PARLEY_PUSH_BOUNCER_URL: z.url({ protocol: /^https?$/ }).optional(),
  PARLEY_PUSH_ORG_ID: z.string().min(1).optional(),
  PARLEY_PUSH_ORG_KEY: z.string().min(1).optional(),
  PARLEY_APNS_KEY_FILE: z.string().min(1).optional(),
  PARLEY_APNS_KEY_ID: z.string().min(1).optional(),
  PARLEY_APNS_TEAM_ID: z.string().min(1).optional(),
  PARLEY_APNS_ENDPOINT: z.url({ protocol: /^https?$/ }).default("https://api.push.apple.com"),
  PARLEY_FCM_CREDENTIALS_FILE: z.string().min(1).optional(),
  PARLEY_FCM_ENDPOINT: z.url({ protocol: /^https?$/ }).default("https://fcm.googleapis.com"),
  PARLEY_EMAIL_GATEWAY_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  PARLEY_EMAIL_GATEWAY_HOST: z.string().min(1).optional(),
  PARLEY_EMAIL_GATEWAY_DOMAIN: z
    .string()
    .regex(/^(?=.{1,253}$)[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/, "must be a domain name")
    .optional(),
  PARLEY_BIG_BLUE_BUTTON_URL: z.url({ protocol: /^https?$/ }).optional(),
  PARLEY_BIG_BLUE_BUTTON_SECRET: z.string().min(1).optional(),
  PARLEY_S3_ENDPOINT: z.url({ protocol: /^https?$/ }).optional(),
  PARLEY_S3_BUCKET: z
    .string()
    .regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, "must be an S3 bucket name")
    .optional(),
  PARLEY_S3_REGION: z.string().min(1).default("us-east-1"),
  PARLEY_S3_ACCESS_KEY_ID: z.string().min(1).optional(),
  PARLEY_S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
  /** Test suites only: cheap scrypt parameters. Never set this on a real server. */
  PARLEY_INSECURE_FAST_HASHING: boolFlag.default(false),
});

export type RateLimitRule = { max: number; windowSeconds: number };

export interface Config {
  host: string;
  port: number;
  dataDir: string;
  /** `{ kind: "sqlite", file }` or `{ kind: "postgres", url }`. */
  database:
    { kind: "sqlite"; file: string; synchronous: "FULL" | "NORMAL"; threads?: number } | { kind: "postgres"; url: string; preparedStatements?: boolean };
  /** Multi-process mode: the NATS server the processes share (events/bus.ts); PostgreSQL only. */
  busUrl: string | undefined;
  /**
   * Multi-process mode: this process's lasting identity (e.g. systemd's %i). With it a graceful stop
   * saves the process's event queues and the next start with the same identity restores them,
   * with the events committed meanwhile (events/bus.ts). Without it each run has a random id.
   */
  processId: string | undefined;
  /** How long connecting to PostgreSQL may take (at start and for each new pool connection). */
  databaseTimeoutSeconds: number;
  externalUrl: string;
  /**
   * Several organizations, one per subdomain (Zulip's REALMS_HAVE_SUBDOMAINS): the organization
   * with string id "" at this domain, the others at `<string_id>.<rootDomain>` (lib/realms.ts).
   * Undefined: one organization answers on every host name.
   */
  rootDomain: string | undefined;
  /**
   * The sign-up page for new organizations, /new/ on the root domain (Zulip's OPEN_REALM_CREATION,
   * http/organizationSignupPages.ts); needs rootDomain.
   */
  organizationSignup: boolean;
  dev: boolean;
  smtpUrl: string | undefined;
  emailFrom: string;
  logLevel: string;
  admin: { email: string | undefined; password: string | undefined };
  organizationName: string;
  /** Prometheus metrics: on their own listener, and/or on the main port to a bearer of the token. */
  metrics: { port: number | undefined; host: string; token: string | undefined };
  /** Proxies whose X-Forwarded-For is believed (the client address of rate limits and logs). */
  trustedProxies: string[];
  rateLimits: {
    enabled: boolean;
    /** Authenticated requests per user. */
    user: RateLimitRule;
    /** Unauthenticated requests per IP address. */
    ip: RateLimitRule;
    /** Failed password logins per username. */
    login: RateLimitRule;
    /** Email-sending requests per IP address and per target address. */
    email: RateLimitRule;
  };
  eventQueueTimeoutSeconds: number;
  /** An idle GET /events answers with a heartbeat after this long (Zulip: 45 s). */
  eventHeartbeatSeconds: number;
  uploads: {
    /** Largest file POST /user_uploads and /api/v1/tus accept (max_file_upload_size_mib). */
    maxFileSizeMib: number;
    /** An upload no message has linked is deleted this long after it was made. */
    unclaimedDays: number;
    /** Files in an S3-compatible bucket instead of the data directory. */
    s3?: S3Settings;
  };
  outgoing: {
    /** Zulip's OUTGOING_WEBHOOK_TIMEOUT_SECONDS. */
    webhookTimeoutSeconds: number;
    /** Hosts outgoing requests may reach even when they resolve to private addresses. */
    allowHosts: string[];
  };
  /** Zulip's push notification service (bouncer) this server is registered with. */
  pushBouncer?: { url: string; orgId: string; orgKey: string };
  /** Direct delivery to Apple and Google, when their credentials are configured. */
  apns?: ApnsSettings;
  fcm?: FcmSettings;
  /** A BigBlueButton server for video calls (Zulip's BIG_BLUE_BUTTON_URL and _SECRET). */
  bigBlueButton?: { url: string; secret: string };
  /** The incoming email gateway: an SMTP listener posting mail sent to channel addresses at `domain`. */
  emailGateway?: { port: number; host: string; domain: string };
  /** How long a claimed job is reserved for the process that claimed it. */
  jobLeaseSeconds: number;
  /** Finished (done or failed) jobs are deleted this long after they finished. */
  jobRetentionDays: number;
  fastPasswordHashing: boolean;
  /** Identity providers besides email and password (PARLEY_AUTH_FILE). */
  auth: AuthSettings;
  /** Two-factor authentication offered (PARLEY_TWO_FACTOR; each organization may still turn it off). */
  twoFactor: boolean;
}

export class ConfigError extends Error {}

export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Config> = {}): Config {
  // A variable set to nothing (`PARLEY_PORT=`) is a mistake, not a request for the default.
  const empty = Object.keys(envSchema.shape).filter((name) => env[name] !== undefined && env[name]!.trim() === "");
  if (empty.length > 0) {
    throw new ConfigError(`Invalid configuration:\n${empty.map((name) => `  ${name}: is set but empty (unset it to use the default)`).join("\n")}`);
  }
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => `  ${issue.path.join(".")}: ${issue.message} (got ${JSON.stringify(env[String(issue.path[0])])})`);
    throw new ConfigError(`Invalid configuration:\n${lines.join("\n")}`);
  }
  const e = parsed.data;
  requireAllOrNone(e, ["PARLEY_PUSH_BOUNCER_URL", "PARLEY_PUSH_ORG_ID", "PARLEY_PUSH_ORG_KEY"]);
  requireAllOrNone(e, ["PARLEY_APNS_KEY_FILE", "PARLEY_APNS_KEY_ID", "PARLEY_APNS_TEAM_ID"]);
  for (const name of ["PARLEY_APNS_KEY_FILE", "PARLEY_FCM_CREDENTIALS_FILE"] as const) {
    if (e[name] !== undefined) requireReadableFile(name, path.resolve(e[name]));
  }
  const dataDir = path.resolve(e.PARLEY_DATA_DIR);
  const database: Config["database"] =
    e.PARLEY_DATABASE_URL === undefined
      ? { kind: "sqlite", file: path.join(dataDir, "parley.sqlite3"), synchronous: e.PARLEY_SQLITE_SYNCHRONOUS, threads: e.PARLEY_SQLITE_THREADS }
      : e.PARLEY_DATABASE_URL.startsWith("sqlite:")
        ? {
            kind: "sqlite",
            file: sqliteFile(e.PARLEY_DATABASE_URL.slice("sqlite:".length)),
            synchronous: e.PARLEY_SQLITE_SYNCHRONOUS,
            threads: e.PARLEY_SQLITE_THREADS,
          }
        : { kind: "postgres", url: e.PARLEY_DATABASE_URL, preparedStatements: e.PARLEY_POSTGRES_PREPARED_STATEMENTS };
  if (e.PARLEY_BUS_URL !== undefined && database.kind !== "postgres") {
    throw new ConfigError(
      "Invalid configuration:\n  PARLEY_BUS_URL: several processes need PostgreSQL (set PARLEY_DATABASE_URL=postgres://...); SQLite serves one process",
    );
  }
  const externalUrl = (e.PARLEY_EXTERNAL_URL ?? `http://${e.PARLEY_ROOT_DOMAIN ?? "localhost"}:${e.PARLEY_PORT}`).replace(/\/+$/, "");
  if (e.PARLEY_ROOT_DOMAIN !== undefined && new URL(externalUrl).hostname !== e.PARLEY_ROOT_DOMAIN) {
    throw new ConfigError(
      `Invalid configuration:\n  PARLEY_ROOT_DOMAIN: PARLEY_EXTERNAL_URL (${externalUrl}) must be at the root domain ${e.PARLEY_ROOT_DOMAIN}, the root organization's address`,
    );
  }
  if (e.PARLEY_ORGANIZATION_SIGNUP && e.PARLEY_ROOT_DOMAIN === undefined) {
    throw new ConfigError(
      "Invalid configuration:\n  PARLEY_ORGANIZATION_SIGNUP: new organizations need subdomains of PARLEY_ROOT_DOMAIN; set it too, or turn sign-up off",
    );
  }
  return {
    host: e.PARLEY_HOST,
    port: e.PARLEY_PORT,
    dataDir,
    database,
    busUrl: e.PARLEY_BUS_URL,
    processId: e.PARLEY_PROCESS_ID,
    databaseTimeoutSeconds: e.PARLEY_DATABASE_TIMEOUT_SECONDS,
    externalUrl,
    rootDomain: e.PARLEY_ROOT_DOMAIN,
    organizationSignup: e.PARLEY_ORGANIZATION_SIGNUP,
    dev: e.PARLEY_DEV,
    smtpUrl: e.PARLEY_SMTP_URL,
    emailFrom: e.PARLEY_EMAIL_FROM ?? `Parley <noreply@${new URL(externalUrl).hostname}>`,
    logLevel: e.PARLEY_LOG_LEVEL,
    admin: { email: e.PARLEY_ADMIN_EMAIL, password: e.PARLEY_ADMIN_PASSWORD },
    organizationName: e.PARLEY_ORGANIZATION_NAME,
    trustedProxies: e.PARLEY_TRUSTED_PROXIES,
    metrics: { port: e.PARLEY_METRICS_PORT, host: e.PARLEY_METRICS_HOST, token: e.PARLEY_METRICS_TOKEN },
    rateLimits: {
      enabled: e.PARLEY_RATE_LIMITS,
      user: { max: 200, windowSeconds: 60 },
      ip: { max: 100, windowSeconds: 60 },
      login: { max: 5, windowSeconds: 30 * 60 },
      email: { max: 5, windowSeconds: 60 * 60 },
    },
    eventQueueTimeoutSeconds: e.PARLEY_EVENT_QUEUE_TIMEOUT_SECONDS,
    eventHeartbeatSeconds: e.PARLEY_EVENT_HEARTBEAT_SECONDS,
    uploads: { maxFileSizeMib: e.PARLEY_MAX_FILE_UPLOAD_SIZE_MIB, unclaimedDays: e.PARLEY_UNCLAIMED_UPLOAD_DAYS, s3: s3Settings(e) },
    outgoing: {
      webhookTimeoutSeconds: e.PARLEY_OUTGOING_WEBHOOK_TIMEOUT_SECONDS,
      allowHosts: e.PARLEY_OUTGOING_HTTP_ALLOW_HOSTS.split(",")
        .map((h) => h.trim())
        .filter((h) => h !== ""),
    },
    pushBouncer:
      e.PARLEY_PUSH_BOUNCER_URL && e.PARLEY_PUSH_ORG_ID && e.PARLEY_PUSH_ORG_KEY
        ? { url: e.PARLEY_PUSH_BOUNCER_URL.replace(/\/+$/, ""), orgId: e.PARLEY_PUSH_ORG_ID, orgKey: e.PARLEY_PUSH_ORG_KEY }
        : undefined,
    apns:
      e.PARLEY_APNS_KEY_FILE && e.PARLEY_APNS_KEY_ID && e.PARLEY_APNS_TEAM_ID
        ? { endpoint: e.PARLEY_APNS_ENDPOINT, keyFile: path.resolve(e.PARLEY_APNS_KEY_FILE), keyId: e.PARLEY_APNS_KEY_ID, teamId: e.PARLEY_APNS_TEAM_ID }
        : undefined,
    fcm: e.PARLEY_FCM_CREDENTIALS_FILE ? { endpoint: e.PARLEY_FCM_ENDPOINT, credentialsFile: path.resolve(e.PARLEY_FCM_CREDENTIALS_FILE) } : undefined,
    bigBlueButton: bigBlueButtonSettings(e),
    emailGateway: emailGatewaySettings(e),
    jobLeaseSeconds: e.PARLEY_JOB_LEASE_SECONDS,
    jobRetentionDays: e.PARLEY_JOB_RETENTION_DAYS,
    fastPasswordHashing: e.PARLEY_INSECURE_FAST_HASHING,
    auth: authSettings(e.PARLEY_AUTH_FILE),
    twoFactor: e.PARLEY_TWO_FACTOR,
    ...overrides,
  };
}

function bigBlueButtonSettings(e: z.output<typeof envSchema>): { url: string; secret: string } | undefined {
  requireAllOrNone(e, ["PARLEY_BIG_BLUE_BUTTON_URL", "PARLEY_BIG_BLUE_BUTTON_SECRET"]);
  const { PARLEY_BIG_BLUE_BUTTON_URL: url, PARLEY_BIG_BLUE_BUTTON_SECRET: secret } = e;
  if (url === undefined || secret === undefined) return undefined;
  return { url: url.endsWith("/") ? url : `${url}/`, secret };
}

function emailGatewaySettings(e: z.output<typeof envSchema>): { port: number; host: string; domain: string } | undefined {
  requireAllOrNone(e, ["PARLEY_EMAIL_GATEWAY_PORT", "PARLEY_EMAIL_GATEWAY_DOMAIN"]);
  const { PARLEY_EMAIL_GATEWAY_PORT: port, PARLEY_EMAIL_GATEWAY_DOMAIN: domain } = e;
  if (port === undefined || domain === undefined) return undefined;
  return { port, host: e.PARLEY_EMAIL_GATEWAY_HOST ?? e.PARLEY_HOST, domain: domain.toLowerCase() };
}

function authSettings(file: string | undefined): AuthSettings {
  if (file === undefined) return NO_AUTH_SETTINGS;
  try {
    return readAuthSettings(path.resolve(file));
  } catch (error) {
    throw new ConfigError(`Invalid configuration:\n  PARLEY_AUTH_FILE: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function isProxyAddress(entry: string): boolean {
  if (["loopback", "linklocal", "uniquelocal"].includes(entry)) return true;
  const [address = "", prefix, ...rest] = entry.split("/");
  const version = net.isIP(address);
  if (version === 0 || rest.length > 0) return false;
  return prefix === undefined || (/^\d+$/.test(prefix) && Number(prefix) <= (version === 4 ? 32 : 128));
}

/** Settings that only work together: some set and some not stops the start. */
function requireAllOrNone(e: z.output<typeof envSchema>, names: Array<keyof z.output<typeof envSchema>>): void {
  const set = names.filter((name) => e[name] !== undefined);
  if (set.length === 0 || set.length === names.length) return;
  const missing = names.filter((name) => e[name] === undefined);
  throw new ConfigError(`Invalid configuration:\n  ${set.join(", ")} ${set.length === 1 ? "is" : "are"} set, so ${missing.join(", ")} must be set too`);
}

function requireReadableFile(name: string, file: string): void {
  try {
    fs.accessSync(file, fs.constants.R_OK);
    if (!fs.statSync(file).isFile()) throw new Error("not a file");
  } catch (error) {
    throw new ConfigError(`Invalid configuration:\n  ${name}: cannot read ${file} (${error instanceof Error ? error.message : String(error)})`);
  }
}

function s3Settings(e: z.output<typeof envSchema>): S3Settings | undefined {
  if (e.PARLEY_S3_BUCKET === undefined) return undefined;
  const missing = (["PARLEY_S3_ENDPOINT", "PARLEY_S3_ACCESS_KEY_ID", "PARLEY_S3_SECRET_ACCESS_KEY"] as const).filter((name) => e[name] === undefined);
  if (missing.length > 0) throw new ConfigError(`Invalid configuration:\n  PARLEY_S3_BUCKET is set, so ${missing.join(", ")} must be set too`);
  return {
    endpoint: e.PARLEY_S3_ENDPOINT!,
    bucket: e.PARLEY_S3_BUCKET,
    region: e.PARLEY_S3_REGION,
    accessKeyId: e.PARLEY_S3_ACCESS_KEY_ID!,
    secretAccessKey: e.PARLEY_S3_SECRET_ACCESS_KEY!,
  };
}

function sqliteFile(p: string): string {
  return p === ":memory:" ? p : path.resolve(p);
}
