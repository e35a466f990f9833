// /console/brands/{brandId}/board: the pipeline's columns and cards (get-pipeline). A card moves with
// a form (`Move`, move-pipeline-card with the version drawn) into a column that does not publish; a
// column that publishes says that a key with `publish` moves cards into it.

import { ServiceError } from '../../../src/errors.js';
import { badge, esc, hidden } from '../layout.js';
import type { BrandScope, ConsoleRequest } from '../request.js';
import type { Page } from './page.js';

interface Column {
  columnId: number;
  name: string;
  position: number;
  publishes: boolean;
  workflowId: number | null;
}

interface Card {
  cardId: number;
  columnId: number;
  launchId: string;
  launchStatus: string;
  title: string;
  version: number;
}

const NOTICES: Record<string, string> = { moved: 'The card was moved.' };

export async function boardPage(req: ConsoleRequest, brand: BrandScope, o: { notice?: string; error?: string; status?: number } = {}): Promise<Page> {
  const board = await req.call<{ columns: Column[]; cards: Card[] }>(brand.principal, 'get-pipeline', { brandId: brand.id });
  const base = `/console/brands/${brand.id}`;
  const targets = board.columns.filter((c) => !c.publishes);
  const cardHtml = (card: Card) => {
    const choices = targets.filter((c) => c.columnId !== card.columnId);
    // A live launch's card is not moved back: moving it would not take the launch off the platform.
    const live = card.launchStatus === 'published' || card.launchStatus === 'publishing';
    const move = live
      ? `<p class="muted live-card">Live: it stays where it is. Pause or change it from <a href="${base}/launches/${esc(card.launchId)}">the launch's page</a>.</p>`
      : choices.length
        ? `<form method="post" action="${base}/board/cards/${card.cardId}" class="decide">${hidden({ csrf_token: req.viewer.csrf, version: card.version })}
<div class="field"><label for="move-${card.cardId}">Move to</label><select id="move-${card.cardId}" name="column_id">${choices
            .map((c) => `<option value="${c.columnId}">${esc(c.name)}</option>`)
            .join('')}</select></div><button type="submit" class="secondary">Move</button></form>`
        : '';
    return `<article class="card board-card" id="card-${card.cardId}" data-card-id="${card.cardId}"><h3><a href="${base}/launches/${esc(card.launchId)}">${esc(card.title)}</a></h3>
<p>${badge(card.launchStatus)}</p>${move}</article>`;
  };
  const columns = board.columns.map((col) => {
    const cards = board.cards.filter((c) => c.columnId === col.columnId);
    const notes = [
      col.publishes
        ? '<p class="muted publishes-note">Publishes: a key with <code>publish</code> moves cards into this column, which publishes their launch.</p>'
        : '',
      col.workflowId ? '<p class="muted">A card entering it starts a workflow run.</p>' : '',
    ].join('');
    return `<section class="column" id="column-${col.columnId}" aria-labelledby="column-${col.columnId}-name"><h2 id="column-${col.columnId}-name">${esc(col.name)} <span class="muted">(${cards.length})</span></h2>${notes}
${cards.map(cardHtml).join('') || '<p class="muted">No cards.</p>'}</section>`;
  });
  const body = `<h1>Board</h1><p class="lead">The pipeline of ${esc(brand.name)}: launches move from column to column. Moving a card here never publishes.</p>
${columns.length ? `<div class="board">${columns.join('')}</div>` : '<p class="empty" id="no-columns">This brand has no pipeline yet. An agent or integration creates its columns (create-pipeline-column) and cards.</p>'}`;
  return { title: 'Board', body, notice: o.notice ?? null, error: o.error ?? null, status: o.status };
}

export function boardNotice(key: string): string | undefined {
  return NOTICES[key];
}

/** The Move form: move-pipeline-card into a column that does not publish, with the card's version as drawn. */
export async function moveCard(
  req: ConsoleRequest,
  brand: BrandScope,
  cardIdText: string,
  body: Record<string, unknown>,
): Promise<{ redirect: string } | Page> {
  const text = (v: unknown) => (typeof v === 'string' ? v : '');
  if (!/^[1-9]\d{0,15}$/.test(cardIdText)) throw new ServiceError('not_found', 'That card was not found.', null);
  const columnId = text(body.column_id);
  const version = text(body.version);
  if (!/^[1-9]\d{0,15}$/.test(columnId) || !/^\d{1,9}$/.test(version)) {
    return boardPage(req, brand, { status: 400, error: 'Choose a column to move the card to; nothing was moved.' });
  }
  const board = await req.call<{ columns: Column[] }>(brand.principal, 'get-pipeline', { brandId: brand.id });
  const target = board.columns.find((c) => c.columnId === Number(columnId));
  if (target?.publishes) {
    return boardPage(req, brand, {
      status: 400,
      error: `“${target.name}” publishes: a key with publish moves cards into it (the console does not publish). Nothing was moved.`,
    });
  }
  try {
    await req.call(brand.principal, 'move-pipeline-card', {
      brandId: brand.id,
      cardId: Number(cardIdText),
      columnId: Number(columnId),
      version: Number(version),
    });
  } catch (err) {
    if (err instanceof ServiceError && err.code === 'stale_read') {
      return boardPage(req, brand, { status: 409, error: 'The card changed since this page was drawn, so it was not moved. Here is the board as it is now.' });
    }
    throw err;
  }
  return { redirect: `/console/brands/${brand.id}/board?notice=moved#card-${cardIdText}` };
}
