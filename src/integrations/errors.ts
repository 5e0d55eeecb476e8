import { ApiError } from "../lib/errors.js";

/**
 * Zulip's webhook errors (zerver/lib/exceptions.py), with its texts and codes. An event the
 * service sends that the integration does not turn into a message answers 200 (the service must
 * not retry or disable the hook) with Zulip's error envelope; a payload that cannot be from the
 * service is a 400.
 */
export function unsupportedEventError(webhookName: string, eventType: string): ApiError {
  return new ApiError(`The '${eventType}' event isn't currently supported by the ${webhookName} webhook; ignoring`, {
    code: "UNSUPPORTED_WEBHOOK_EVENT_TYPE",
    status: 200,
    data: { webhook_name: webhookName, event_type: eventType },
  });
}

export function anomalousPayloadError(webhookName: string): ApiError {
  return new ApiError(`Unable to parse request: Did ${webhookName} generate this event?`, {
    code: "ANOMALOUS_WEBHOOK_PAYLOAD",
    data: { webhook_name: webhookName },
  });
}

export function missingEventHeaderError(header: string): ApiError {
  return new ApiError(`Missing the HTTP event header '${header}'`, { code: "MISSING_HTTP_EVENT_HEADER", data: { header } });
}
