/**
 * An address under the service's public base URL (PUBLIC_BASE_URL): the base's own path is kept,
 * so a service served under a prefix (`https://pay.example/api`) links to `/api/invitations/accept`,
 * whatever trailing slashes the base has. A token travels as the query parameter `token`.
 */
export function publicLink(baseUrl: string, path: string, token?: string): string {
  // Stryker disable next-line Regex: equivalent, the URL parser reads one leading slash as many
  const url = new URL(`${baseUrl.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`);
  if (token !== undefined) url.searchParams.set('token', token);
  return url.toString();
}
