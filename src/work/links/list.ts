import type { RunContext } from '../../runtime/context.js'
import { type RecordWalk, walkList } from '../common/list-walk.js'
import { sortOrder } from '../common/sort.js'
import { type LinkFilters, linkFilter } from './filters.js'
import { LINK_VIEW } from './view.js'

/**
 * `links list`: the first page, or every page with --all, a filter or --sort, as much as the list
 * scope says; sorted by `sort` (`-FIELD`: descending). The walk: the matches a page at a time.
 */
export async function listLinks(
  filters: LinkFilters & { sort?: string },
  context: RunContext,
): Promise<RecordWalk> {
  const match = linkFilter(filters, context.now())
  const order = sortOrder(filters.sort, LINK_VIEW)
  const { api } = await context.api()
  return walkList(api.pages('listLinks'), match, order, context.listScope)
}
