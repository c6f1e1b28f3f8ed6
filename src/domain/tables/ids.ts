import { idForm, randomId } from '../../ids.ts';

export const newTableId = () => randomId('tbl');
export const newColumnId = () => randomId('col');

/** An id of the wrong form names nothing (see idForm). */
export const isTableId = idForm('tbl');
export const isColumnId = idForm('col');
