import { randomUUID } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import samlify from "samlify";

/**
 * A SAML identity provider on 127.0.0.1 for the tests: samlify's IdentityProvider (a real IdP
 * implementation) behind an HTTP single sign-on endpoint. It reads the AuthnRequest of the
 * HTTP-Redirect binding (checking its signature against the SP's metadata), and answers the way
 * IdPs do: a page with a form that posts the signed Response and the RelayState to the SP's
 * assertion consumer service. The tests read that form and post it themselves.
 */

const here = path.dirname(fileURLToPath(import.meta.url));
export const FIXTURES = path.join(here, "../fixtures/saml");
export const fixture = (name: string) => path.join(FIXTURES, name);

// samlify checks every message against the SAML schemas; xmllint compiled to WebAssembly
// (no native download) does it. The package has no type declarations.
const { validate } = createRequire(import.meta.url)("@authenio/samlify-xmllint-wasm") as { validate: (xml: string) => Promise<unknown> };
samlify.setSchemaValidator({ validate });

const UNSPECIFIED = "urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified";
const BASIC = "urn:oasis:names:tc:SAML:2.0:attrname-format:basic";
const STRING = "xs:string";

/** The person signed in at the IdP. */
export interface IdpUser {
  nameId: string;
  email?: string;
  firstName?: string;
  lastName?: string;
  fullName?: string;
}

/** The Response's template tags (samlify's names) a test replaces: undefined drops the attribute. */
export type Tags = Record<string, string | undefined>;

/** What the SSO endpoint answered: the form's target and fields. */
export interface PostedForm {
  action: string;
  SAMLResponse: string;
  RelayState: string;
}

export class TestIdp {
  readonly idp: ReturnType<typeof samlify.IdentityProvider>;
  /** The SP as the IdP's administrator registered it: from Parley's /saml/metadata.xml. */
  sp: ReturnType<typeof samlify.ServiceProvider> | undefined;
  user: IdpUser | null = null;
  /** Replaced tags of the next Responses (expired, another audience, another recipient…). */
  tags: Tags = {};
  /** The SP to build the next Responses for, when not `sp` (an SP that wants unsigned assertions…). */
  responseSp: ReturnType<typeof samlify.ServiceProvider> | undefined;
  /** Changes to the Response's template before it is filled in and signed. */
  edit: (template: string) => string = (template) => template;
  /** Request ids this IdP has read. */
  readonly requests: string[] = [];
  private server: http.Server | undefined;
  ssoUrl = "";

  constructor(
    readonly entityId: string,
    keyName: "idp" | "forger",
    options: { encryptAssertions?: boolean } = {},
  ) {
    this.idp = samlify.IdentityProvider({
      // Encrypted to the certificate of the SP's metadata (its "encryption" KeyDescriptor).
      isAssertionEncrypted: options.encryptAssertions ?? false,
      entityID: entityId,
      privateKey: fs.readFileSync(fixture(`${keyName}-key.pem`)),
      signingCert: fs.readFileSync(fixture(`${keyName}-cert.pem`)),
      nameIDFormat: [UNSPECIFIED],
      wantAuthnRequestsSigned: true,
      // The SSO URL is known once listening; the metadata's copy is not used for the Redirect binding.
      singleSignOnService: [{ Binding: "urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect", Location: `https://${keyName}.invalid/sso` }],
      loginResponseTemplate: {
        context: samlify.SamlLib.defaultLoginResponseTemplate.context,
        attributes: [
          { name: "email", valueTag: "email", nameFormat: BASIC, valueXsiType: STRING },
          { name: "first_name", valueTag: "first", nameFormat: BASIC, valueXsiType: STRING },
          { name: "last_name", valueTag: "last", nameFormat: BASIC, valueXsiType: STRING },
          { name: "display_name", valueTag: "full", nameFormat: BASIC, valueXsiType: STRING },
        ],
      },
    });
  }

  async start(): Promise<void> {
    this.server = http.createServer((request, response) => {
      this.sso(request, response).catch((error: unknown) => {
        response.writeHead(500, { "Content-Type": "text/plain" }).end(String(error));
      });
    });
    await new Promise<void>((resolve, reject) => {
      this.server!.once("error", reject);
      this.server!.listen(0, "127.0.0.1", resolve);
    });
    this.ssoUrl = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/sso`;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  /** GET /sso?SAMLRequest=…&RelayState=…&SigAlg=…&Signature=…: the Response, in an auto-posting form. */
  private async sso(request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
    const url = new URL(request.url ?? "/", this.ssoUrl);
    if (url.pathname !== "/sso" || !this.sp) {
      response.writeHead(404).end();
      return;
    }
    // The signed octets of the Redirect binding: the parameters as they were encoded in the URL.
    const raw = new Map(
      url.search
        .slice(1)
        .split("&")
        .map((part) => [part.split("=")[0], part] as const),
    );
    const octetString = ["SAMLRequest", "RelayState", "SigAlg"].flatMap((name) => raw.get(name) ?? []).join("&");
    const query = Object.fromEntries(url.searchParams);
    const parsed = await this.idp.parseLoginRequest(this.sp, "redirect", { query, octetString });
    const requestId = (parsed.extract as { request?: { id?: string } }).request?.id;
    if (requestId) this.requests.push(requestId);
    if (!this.user) {
      response.writeHead(403, { "Content-Type": "text/plain" }).end("nobody is signed in at the IdP");
      return;
    }
    const form = await this.respond(parsed, query.RelayState ?? "");
    response
      .writeHead(200, { "Content-Type": "text/html" })
      .end(
        `<form method="post" action="${form.action}"><input type="hidden" name="SAMLResponse" value="${form.SAMLResponse}">` +
          `<input type="hidden" name="RelayState" value="${form.RelayState}"><noscript><button>Continue</button></noscript></form>` +
          `<script>document.forms[0].submit()</script>`,
      );
  }

  /** A Response to the parsed request for the current user, with this IdP's key and the test's tags. */
  async respond(requestInfo: unknown, relayState: string): Promise<PostedForm> {
    const sp = this.responseSp ?? this.sp!;
    const user = this.user!;
    const now = Date.now();
    const iso = (offsetMs: number) => new Date(now + offsetMs).toISOString();
    const requestId = (requestInfo as { extract?: { request?: { id?: string } } }).extract?.request?.id ?? "";
    const acs = sp.entityMeta.getAssertionConsumerService("post") as string;
    const values: Tags = {
      ID: `_${randomUUID()}`,
      AssertionID: `_${randomUUID()}`,
      Destination: acs,
      Audience: sp.entityMeta.getEntityID(),
      SubjectRecipient: acs,
      Issuer: this.entityId,
      IssueInstant: iso(0),
      StatusCode: "urn:oasis:names:tc:SAML:2.0:status:Success",
      ConditionsNotBefore: iso(-5_000),
      ConditionsNotOnOrAfter: iso(5 * 60_000),
      SubjectConfirmationDataNotOnOrAfter: iso(5 * 60_000),
      NameIDFormat: UNSPECIFIED,
      NameID: user.nameId,
      InResponseTo: requestId,
      AuthnStatement: "",
      attrEmail: user.email,
      attrFirst: user.firstName,
      attrLast: user.lastName,
      attrFull: user.fullName,
      ...this.tags,
    };
    const result = (await this.idp.createLoginResponse(
      sp,
      requestInfo as never,
      "post",
      { email: user.email },
      {
        relayState,
        // An undefined value drops the attribute (or the AttributeValue): what an IdP leaves out.
        customTagReplacement: (template) => ({ id: values.ID!, context: samlify.SamlLib.replaceTagsByValue(this.edit(template), values) }),
      },
    )) as { context: string; entityEndpoint: string };
    return { action: result.entityEndpoint, SAMLResponse: result.context, RelayState: relayState };
  }
}

/** The fields of the auto-posting form an SSO page answered with. */
export function readForm(html: string): PostedForm {
  const field = (name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1];
  const action = /<form method="post" action="([^"]+)"/.exec(html)?.[1];
  const SAMLResponse = field("SAMLResponse");
  const RelayState = field("RelayState");
  if (!action || SAMLResponse === undefined || RelayState === undefined) throw new Error(`not an auto-posting form: ${html.slice(0, 200)}`);
  return { action, SAMLResponse, RelayState };
}
