/** The preview links the lightbox moves between: images (not videos or YouTube) in the message list. */
export const PREVIEW_LINKS = ".message-list .message_inline_image:not(.youtube-video):not(.message_inline_video) > a";
