/** Page arithmetic of every paginated list (docs/API.md, Pagination): page ≥ 1, limit 1..100, default 1 and 50. */
import { type Static, Type } from 'typebox';

export const DEFAULT_PAGE = 1;
export const DEFAULT_LIMIT = 50;

export interface PageRequest {
  readonly page: number;
  readonly limit: number;
}

/** The `pagination` object of every list response. */
export const Pagination = Type.Object(
  {
    page: Type.Integer(),
    limit: Type.Integer(),
    total: Type.Integer(),
    pages: Type.Integer(),
  },
  { title: 'Pagination' },
);
export type Pagination = Static<typeof Pagination>;

export function toPageRequest(input: { page?: number | undefined; limit?: number | undefined }): PageRequest {
  return { page: input.page ?? DEFAULT_PAGE, limit: input.limit ?? DEFAULT_LIMIT };
}

export function pageOffset(request: PageRequest): number {
  return (request.page - 1) * request.limit;
}

/** True when the page starts past the last item, so its rows need not be read at all. */
export function isPastEnd(request: PageRequest, total: number): boolean {
  return pageOffset(request) >= total;
}

export function toPagination(request: PageRequest, total: number): Pagination {
  return {
    page: request.page,
    limit: request.limit,
    total,
    pages: total === 0 ? 0 : Math.ceil(total / request.limit),
  };
}
