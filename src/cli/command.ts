import { parseArgs } from "node:util";
import * as z from "zod";
import type { Config } from "../config.js";
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from "../lib/passwords.js";
import { Role, type RoleCode } from "../models/roles.js";

/**
 * The shape of a `parley <command>`: its options (parsed with node:util parseArgs, strict) and
 * what it does. A command reports a problem by throwing CliError: the message goes to stderr
 * and the process exits with its code (2: the command line is wrong, 1: the request failed).
 */
export interface OptionSpec {
  type: "string" | "boolean";
  /** Shown in --help, e.g. "EMAIL". */
  value?: string;
  help: string;
  required?: boolean;
}

export interface ParsedArgs {
  values: Record<string, string | boolean | undefined>;
  positionals: string[];
}

export interface Command {
  name: string;
  summary: string;
  options: Record<string, OptionSpec>;
  /** Positional arguments, for --help (e.g. "[show FILE]"); none accepted when absent. */
  positionals?: string;
  /** Resolves to the exit code; -1 keeps the process running (serve). */
  run(config: Config, args: ParsedArgs): Promise<number>;
}

export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

export const usageError = (message: string) => new CliError(message, 2);

/** Parses `argv` for `command`; null when --help was asked (the help has been printed). */
export function parseCommandArgs(command: Command, argv: string[]): ParsedArgs | null {
  if (argv.includes("--help") || argv.includes("-h")) {
    print(commandHelp(command));
    return null;
  }
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options: Object.fromEntries(Object.entries(command.options).map(([name, spec]) => [name, { type: spec.type }])),
      allowPositionals: command.positionals !== undefined,
      strict: true,
    });
  } catch (error) {
    throw usageError(`${error instanceof Error ? error.message : String(error)}\nSee: parley ${command.name} --help`);
  }
  for (const [name, spec] of Object.entries(command.options)) {
    if (spec.required && parsed.values[name] === undefined) {
      throw usageError(`missing required option --${name}\nSee: parley ${command.name} --help`);
    }
  }
  return { values: parsed.values as ParsedArgs["values"], positionals: parsed.positionals };
}

export function commandHelp(command: Command): string {
  const flags = Object.entries(command.options).map(([name, spec]) => {
    const flag = spec.type === "string" ? `--${name} ${spec.value ?? "VALUE"}` : `--${name}`;
    return { flag, text: `${spec.help}${spec.required ? " (required)" : ""}` };
  });
  const width = Math.max(0, ...flags.map((f) => f.flag.length));
  return [
    `Usage: parley ${command.name}${flags.length > 0 ? " [options]" : ""}${command.positionals ? ` ${command.positionals}` : ""}`,
    "",
    command.summary,
    ...(flags.length > 0 ? ["", "Options:", ...flags.map((f) => `  ${f.flag.padEnd(width)}  ${f.text}`)] : []),
  ].join("\n");
}

export function print(text: string): void {
  process.stdout.write(`${text}\n`);
}

export function stringOption(args: ParsedArgs, name: string): string | undefined {
  const value = args.values[name];
  return typeof value === "string" ? value : undefined;
}

export function requiredOption(args: ParsedArgs, name: string): string {
  const value = stringOption(args, name);
  if (value === undefined) throw usageError(`missing required option --${name}`);
  return value;
}

export const ROLE_NAMES: Record<string, RoleCode> = {
  owner: Role.OWNER,
  administrator: Role.ADMINISTRATOR,
  moderator: Role.MODERATOR,
  member: Role.MEMBER,
  guest: Role.GUEST,
};

export function roleName(role: number): string {
  return Object.entries(ROLE_NAMES).find(([, code]) => code === role)?.[0] ?? String(role);
}

export function parseRole(value: string): RoleCode {
  const role = ROLE_NAMES[value.toLowerCase()];
  if (role === undefined) throw usageError(`invalid --role "${value}": use one of ${Object.keys(ROLE_NAMES).join(", ")}`);
  return role;
}

export function checkEmail(value: string, option: string): string {
  const email = value.trim();
  if (!z.email().safeParse(email).success) throw usageError(`invalid --${option} "${value}": not an email address`);
  return email;
}

export function checkPassword(value: string, option: string): string {
  if (value.length < PASSWORD_MIN_LENGTH || value.length > PASSWORD_MAX_LENGTH) {
    throw usageError(`invalid --${option}: a password has ${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters`);
  }
  return value;
}

/** Zulip's full-name rule: 1 to 100 characters once trimmed. */
export function checkFullName(value: string, option: string): string {
  const name = value.trim();
  if (name.length === 0) throw usageError(`invalid --${option}: a name cannot be empty`);
  if (name.length > 100) throw usageError(`invalid --${option}: a name has at most 100 characters`);
  return name;
}
