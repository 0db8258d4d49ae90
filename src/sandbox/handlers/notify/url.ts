/** What a webhook endpoint may be: an http or https URL with a host. Nothing else is ever sent a notification. */
export function isWebhookUrl(text: string): boolean {
  try {
    const url = new URL(text)
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== ''
  } catch {
    return false
  }
}
