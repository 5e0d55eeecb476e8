// The tests read list elements they have asserted through the same helper as the server.
export { at } from "../../src/util/defined.js";
