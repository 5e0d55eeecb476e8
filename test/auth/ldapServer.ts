import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Attribute, Change, Client } from "ldapts";
import { freePort } from "../support/process.js";

/**
 * A real LDAP directory for the tests: Debian's OpenLDAP slapd, started on free loopback ports
 * from a temporary folder with its own slapd.conf (mdb database, the inetOrgPerson schema), filled
 * over LDAP as its root DN, stopped (and the folder removed) by `stop`. With `tls`, a CA and a
 * certificate for 127.0.0.1 are made with the openssl CLI, and slapd also listens on ldaps://
 * and offers StartTLS. `.ci/run` installs slapd; without /usr/sbin/slapd the LDAP tests skip.
 */

export const SLAPD = "/usr/sbin/slapd";

export const BASE_DN = "dc=example,dc=com";
export const PEOPLE_DN = `ou=people,${BASE_DN}`;
export const ADMIN_DN = `cn=admin,${BASE_DN}`;
export const ADMIN_PASSWORD = "admin-secret";

export interface Person {
  uid: string;
  cn: string;
  mail?: string;
  password: string;
}

export interface LdapTestServer {
  url: string;
  /** ldaps:// (with `tls` only). */
  ldapsUrl: string;
  /** The CA that signed slapd's certificate (with `tls` only). */
  caFile: string;
  dir: string;
  add(person: Person): Promise<void>;
  /** Replaces attributes of uid=<uid>. */
  modify(uid: string, attributes: Record<string, string>): Promise<void>;
  remove(uid: string): Promise<void>;
  stop(): Promise<void>;
}

export const personDn = (uid: string) => `uid=${uid},${PEOPLE_DN}`;

/** Salted SHA-1 as slappasswd writes it, so one test person's password is stored hashed. */
export function ssha(password: string): string {
  const salt = randomBytes(8);
  return `{SSHA}${Buffer.concat([createHash("sha1").update(password).update(salt).digest(), salt]).toString("base64")}`;
}

function makeCertificates(dir: string): { ca: string; cert: string; key: string } {
  const file = (name: string) => path.join(dir, name);
  const openssl = (...args: string[]) => execFileSync("openssl", args, { stdio: "pipe" });
  openssl(
    "req",
    "-x509",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-keyout",
    file("ca.key"),
    "-out",
    file("ca.pem"),
    "-days",
    "2",
    "-subj",
    "/CN=Parley test CA",
    "-addext",
    "basicConstraints=critical,CA:TRUE",
    "-addext",
    "keyUsage=critical,keyCertSign,cRLSign",
  );
  openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", file("server.key"), "-out", file("server.csr"), "-subj", "/CN=127.0.0.1");
  fs.writeFileSync(file("ext.cnf"), "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n");
  openssl(
    "x509",
    "-req",
    "-in",
    file("server.csr"),
    "-CA",
    file("ca.pem"),
    "-CAkey",
    file("ca.key"),
    "-CAcreateserial",
    "-out",
    file("server.pem"),
    "-days",
    "2",
    "-extfile",
    file("ext.cnf"),
  );
  return { ca: file("ca.pem"), cert: file("server.pem"), key: file("server.key") };
}

export async function startLdapServer(options: { tls?: boolean } = {}): Promise<LdapTestServer> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "parley-slapd-"));
  fs.mkdirSync(path.join(dir, "db"));
  const port = await freePort();
  const tlsPort = options.tls ? await freePort() : 0;
  const certs = options.tls ? makeCertificates(dir) : undefined;
  fs.writeFileSync(
    path.join(dir, "slapd.conf"),
    [
      "include /etc/ldap/schema/core.schema",
      "include /etc/ldap/schema/cosine.schema",
      "include /etc/ldap/schema/inetorgperson.schema",
      `pidfile ${path.join(dir, "slapd.pid")}`,
      "modulepath /usr/lib/ldap",
      "moduleload back_mdb",
      ...(certs ? [`TLSCACertificateFile ${certs.ca}`, `TLSCertificateFile ${certs.cert}`, `TLSCertificateKeyFile ${certs.key}`] : []),
      "database mdb",
      "maxsize 10485760",
      `suffix "${BASE_DN}"`,
      `rootdn "${ADMIN_DN}"`,
      `rootpw ${ADMIN_PASSWORD}`,
      `directory ${path.join(dir, "db")}`,
      "access to attrs=userPassword by self write by anonymous auth by * none",
      "access to * by * read",
      "",
    ].join("\n"),
  );
  const urls = [`ldap://127.0.0.1:${port}/`, ...(certs ? [`ldaps://127.0.0.1:${tlsPort}/`] : [])];
  let output = "";
  const child: ChildProcess = spawn(SLAPD, ["-f", path.join(dir, "slapd.conf"), "-h", urls.join(" "), "-d", "0"], { stdio: ["ignore", "pipe", "pipe"] });
  child.stdout!.on("data", (d) => (output += d));
  child.stderr!.on("data", (d) => (output += d));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const url = `ldap://127.0.0.1:${port}`;

  const admin = async <T>(fn: (client: Client) => Promise<T>): Promise<T> => {
    const client = new Client({ url, timeout: 5000, connectTimeout: 5000 });
    try {
      await client.bind(ADMIN_DN, ADMIN_PASSWORD);
      return await fn(client);
    } finally {
      await client.unbind().catch(() => undefined);
    }
  };
  const stop = async () => {
    if (child.exitCode === null) {
      child.kill("SIGTERM");
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
      if (child.exitCode === null) child.kill("SIGKILL");
    }
    fs.rmSync(dir, { recursive: true, force: true });
  };

  const deadline = Date.now() + 20_000;
  for (;;) {
    try {
      await admin(async () => undefined);
      break;
    } catch (error) {
      if (child.exitCode !== null || Date.now() > deadline) {
        await stop();
        throw new Error(`slapd did not start: ${String(error)}\n${output}`, { cause: error });
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  await admin(async (client) => {
    await client.add(BASE_DN, { objectClass: ["dcObject", "organization"], dc: "example", o: "Example" });
    await client.add(PEOPLE_DN, { objectClass: "organizationalUnit", ou: "people" });
  });

  return {
    url,
    ldapsUrl: `ldaps://127.0.0.1:${tlsPort}`,
    caFile: certs?.ca ?? "",
    dir,
    add: (person) =>
      admin((client) =>
        client.add(personDn(person.uid), {
          objectClass: "inetOrgPerson",
          uid: person.uid,
          cn: person.cn,
          sn: person.cn.split(" ").at(-1) ?? person.cn,
          ...(person.mail ? { mail: person.mail } : {}),
          userPassword: person.password,
        }),
      ),
    modify: (uid, attributes) =>
      admin((client) =>
        client.modify(
          personDn(uid),
          Object.entries(attributes).map(([type, value]) => new Change({ operation: "replace", modification: new Attribute({ type, values: [value] }) })),
        ),
      ),
    remove: (uid) => admin((client) => client.del(personDn(uid))),
    stop,
  };
}

/** Why the LDAP tests cannot run here (no slapd, or it does not start), or null. Found once per worker. */
async function slapdSkipReason(): Promise<string | null> {
  if (!fs.existsSync(SLAPD)) return `${SLAPD} is missing (apt-get install slapd ldap-utils)`;
  try {
    await (await startLdapServer()).stop();
    return null;
  } catch (error) {
    return `slapd does not start here: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}`;
  }
}

const skipReason = await slapdSkipReason();
if (skipReason !== null) console.warn(`LDAP tests skipped: ${skipReason}`);
export const slapdMissing = skipReason !== null;
