import { Field, Int, ObjectType, type ClassType } from 'type-graphql';

@ObjectType('Pagination', { simpleResolvers: true })
export class PaginationType {
  @Field(() => Int) total!: number;
  @Field(() => Int) currentPage!: number;
  @Field(() => Int) perPage!: number;
  @Field(() => Int) lastPage!: number;
  @Field(() => Int, {
    nullable: true,
    description: 'Position of the first record on this page; null when the page is empty',
  })
  from!: number | null;
  @Field(() => Int, {
    nullable: true,
    description: 'Position of the last record on this page; null when the page is empty',
  })
  to!: number | null;
}

/** A page of `item`: the spec's `records` plus `pagination`. */
export function PageType<T extends object>(item: ClassType<T>) {
  @ObjectType({ simpleResolvers: true })
  abstract class PageClass {
    @Field(() => [item]) records!: T[];
    @Field(() => PaginationType) pagination!: PaginationType;
  }
  return PageClass;
}

/** A page of a list that can grow large: also the cursor of the next page, read through the list's index. */
export function CursorPageType<T extends object>(item: ClassType<T>) {
  @ObjectType({ simpleResolvers: true })
  abstract class CursorPageClass extends PageType(item) {
    @Field(() => String, {
      nullable: true,
      description:
        'Pass as `after` for the next page, found through the index from where this one ended (no deeper scan for deeper pages); null on the last page',
    })
    nextCursor?: string | null;
  }
  return CursorPageClass;
}

export const AFTER_DESCRIPTION = 'The nextCursor of the previous page (instead of page): the page after it';
