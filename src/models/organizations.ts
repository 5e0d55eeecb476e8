import { SYSTEM_BOT_REALM } from "./systemBots.js";

/** Zulip's Realm.MAX_REALM_NAME_LENGTH; a name is trimmed and not empty. */
export const REALM_NAME_MAX_LENGTH = 40;

/**
 * An organization's string id: the subdomain it is served at under PARLEY_ROOT_DOMAIN (Zulip's
 * Realm.string_id, checked as zerver/forms.py's check_subdomain_available does). "" is the root
 * domain's organization. `parley create-organization` and the sign-up page (/new/) share these
 * rules; only the page refuses the reserved names, as Zulip lets its own command take them.
 */
export const SUBDOMAIN_MIN_LENGTH = 3;
/** Zulip's Realm.MAX_REALM_SUBDOMAIN_LENGTH. */
export const SUBDOMAIN_MAX_LENGTH = 40;

/** Why a string id is malformed. */
export type SubdomainProblem = "length" | "characters" | "dash";

/** The problem of a non-empty string id's form, or undefined when it is well formed. */
export function subdomainProblem(value: string): SubdomainProblem | undefined {
  if (value.length < SUBDOMAIN_MIN_LENGTH || value.length > SUBDOMAIN_MAX_LENGTH) return "length";
  if (!/^[a-z0-9-]+$/.test(value)) return "characters";
  if (value.startsWith("-") || value.endsWith("-")) return "dash";
  return undefined;
}

/**
 * Zulip's is_reserved_subdomain: a name of its lists (zerver/lib/name_restrictions.py), or one of
 * them with an "s" added, or the system bots' realm.
 */
export function isReservedSubdomain(value: string): boolean {
  if (value === SYSTEM_BOT_REALM) return true;
  return RESERVED_SUBDOMAINS.has(value) || (value.endsWith("s") && RESERVED_SUBDOMAINS.has(value.slice(0, -1)));
}

/** Zulip's ZULIP_RESERVED_SUBDOMAINS and GENERIC_RESERVED_SUBDOMAINS, as one set. */
const RESERVED_SUBDOMAINS: ReadonlySet<string> = new Set(
  [
    // Zulip's own terms, machines, pages, names, platforms and programs
    "stream channel topic thread installation organization your-org realm team subdomain activity octopus acme push",
    "zulipdev localhost staging prod production testing nagios nginx mg front-mail",
    "server client features integration bot blog history story stories testimonial compare for vs",
    "slack mattermost rocketchat irc twitter zephyr flowdock spark skype microsoft twist ryver matrix discord email usenet",
    "zulip tulip humbug plan9 electron linux mac windows cli ubuntu android ios",
    "contribute floss foss free opensource open code license intern outreachy gsoc externship",
    "auth authentication security engineering infrastructure tooling tools javascript python",
    // generic names
    "about abuse account ad admanager admin admindashboard administrator adsense advice adword affiliate alpha anonymous api",
    "assets audio avatar badges beta billing biz blog board bookmark bot bugs buy cache calendar chat clients cname code",
    "comment communities community contact contributor control coppa copyright cpanel css cssproxy customer customise",
    "customize dashboard data demo deploy deployment desktop dev devel developer development discussion diversity dmca",
    "docs donate download e-mail email embed embedded example explore faq favorite favourites features feed feedback files",
    "forum friend ftp general gettingstarted gift git global graphs guide hack hello help home hostmaster https icon im",
    "image img inbox index investors invite invoice ios ipad iphone irc jabber jars jobs join js kb knowledgebase launchpad",
    "legal livejournal lj login logs m mail main manage map media memories memory merchandise messages mobile my mystore",
    "networks new newsite onboarding official ogg online order paid panel partner partnerpage pay payment picture policy",
    "pop popular portal post postmaster press pricing principles privacy private profile public question random redirect",
    "register registration resolver root rss s sandbox school search secure servers service setting shop shortcuts signin",
    "signup sitemap sitenews sites sms smtp sorry ssl staff stage staging stars stat static statistics status store style",
    "support surveys svn syn syndicated system tag talk team termsofservice test testers ticket tool tos trac translate",
    "update upgrade uploads use user username validation videos volunteer web webdisk webmail webmaster welcome whm whois",
    "wiki www www0 www8 www9 xml xmpp xoxo",
  ].flatMap((line) => line.split(" ")),
);
