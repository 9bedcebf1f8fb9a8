// Selections shared by several rows. Aliases turn GraphQL's camelCase into the
// spec's snake_case: the document is where one interface becomes the other.

export const PAGINATION =
  'pagination { total current_page: currentPage per_page: perPage last_page: lastPage from to }';
