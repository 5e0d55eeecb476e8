/** Validates a response against the reference OpenAPI schema. (Being written.) */
export function validateResponse(_method: string, _path: string, _status: number, _body: unknown): void {}
