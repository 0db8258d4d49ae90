import type { View } from '../views.js'

/** What a list command found (resources/list-walk.ts), for the notes under the list. */
export interface ListOutcome {
  /** Records shown. */
  shown: number
  /** More records may exist than were shown: pages not fetched, or the limit reached. */
  more: 'pages' | 'limit' | undefined
  /** Requests made and records looked at. */
  pages: number
  scanned: number
  filtered: boolean
  /** What the command line asked: so that a note names only flags the command takes and were not given. */
  asked?: ListAsked
}

/** Of a list's command line: whether the command takes --all, and whether --all and --limit were given. */
export interface ListAsked {
  takesAll: boolean
  all: boolean
  limitGiven: boolean
}

/**
 * The notes under a list: how far a filter searched when it took more than one request, and how
 * to see what was left out, naming only flags the command takes and the user has not given.
 */
export function listNotesText(found: ListOutcome, view: View): string {
  let text = ''
  if (found.filtered && found.pages > 1)
    text += `Searched ${found.scanned} ${view.plural} on ${found.pages} pages.\n`
  const asked = found.asked ?? { takesAll: false, all: false, limitGiven: false }
  const allLeft = asked.takesAll && !asked.all
  // A --limit given is raised; --all only where the command takes it and it was not given.
  const more = asked.limitGiven
    ? 'a higher --limit shows more'
    : allLeft
      ? 'add --limit N or --all for more'
      : 'add --limit N for more'
  if (found.more === 'pages') {
    const fetch = allLeft ? 'add --all to fetch them all' : more
    text += `More ${view.plural} exist than this first page: ${fetch}.\n`
  } else if (found.more === 'limit') {
    const matching = found.filtered ? 'matching ' : ''
    const what = found.shown === 1 ? `${matching}${view.noun}` : `${found.shown} ${matching}${view.plural}`
    text += `Showing the first ${what}: ${more}.\n`
  }
  return text
}
