/** The events Parley publishes: their types are the API contract's (src/contract/events.ts), shared with the web app. */
export type * from "../contract/events.js";
