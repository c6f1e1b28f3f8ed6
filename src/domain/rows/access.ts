import { AppError, type FieldError, invalidDetail } from '../../errors.ts';

export const rowNotFound = (tableId: string, rowId: string) =>
  new AppError('not_found', `No row ${rowId} in table ${tableId}.`);

/** A 400 naming every offending path, for checks a route makes past its schema (cells, sort, filter). */
export const invalidInput = (where: string, errors: FieldError[]) =>
  new AppError('validation_failed', invalidDetail(where, errors), { errors });
