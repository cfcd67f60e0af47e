/**
 * The BR Code: the EMV "Merchant-Presented Mode" payload a PIX payer scans (Banco Central do
 * Brasil, Manual de Padrões para Iniciação do Pix). A string of TLV fields, each a two-digit id,
 * a two-digit length and the value, closed by field 63, a CRC16 over everything before its value:
 *
 *   000201 010212 26..(00 br.gov.bcb.pix, 25 location) 52040000 5303986 54..amount 5802BR
 *   59..merchant 60..city 62..(05 txid) 6304<CRC16>
 *
 * `01` = 12 makes it a dynamic, single-use code (the amount and expiry live at the PSP behind the
 * location). Pure; the simulated PIX provider builds its codes here (functions/simulators/onRamp.ts).
 */
import { formatDecimal } from '#domain/money.ts';

export interface BrCodeInput {
  /** Where the payer's bank fetches the charge (field 26.25), without the scheme. */
  location: string;
  /** BRL minor units (centavos). */
  amount: bigint;
  merchantName: string;
  merchantCity: string;
  /** Transaction id (field 62.05): 1 to 25 letters and digits. */
  txid: string;
}

/** One TLV field; values are ASCII and at most 99 characters (the length has two digits). */
function field(id: string, value: string): string {
  if (!/^[\x20-\x7e]*$/.test(value)) throw new Error(`BR Code field ${id} must be printable ASCII`);
  if (value.length > 99) throw new Error(`BR Code field ${id} is longer than 99 characters`);
  return `${id}${value.length.toString().padStart(2, '0')}${value}`;
}

/** CRC-16/CCITT-FALSE (polynomial 0x1021, initial 0xFFFF, no reflection): the BR Code's check, four hex digits upper case. */
export function crc16(text: string): string {
  let crc = 0xffff;
  for (const byte of Buffer.from(text, 'utf8')) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit += 1) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc.toString(16).toUpperCase().padStart(4, '0');
}

/** Names and cities are cut to the EMV limits (25 and 15), accents dropped: payer apps show ASCII. */
function plain(text: string, max: number): string {
  return text
    .normalize('NFD')
    .replace(/[^\x20-\x7e]/g, '')
    .trim()
    .slice(0, max);
}

export function buildBrCode(input: BrCodeInput): string {
  if (input.amount <= 0n) throw new Error('a BR Code needs a positive amount');
  if (!/^[A-Za-z0-9]{1,25}$/.test(input.txid)) throw new Error('txid must be 1 to 25 letters and digits');
  const body =
    field('00', '01') +
    field('01', '12') +
    field('26', field('00', 'br.gov.bcb.pix') + field('25', input.location)) +
    field('52', '0000') +
    field('53', '986') +
    field('54', formatDecimal(input.amount, 2)) +
    field('58', 'BR') +
    field('59', plain(input.merchantName, 25)) +
    field('60', plain(input.merchantCity, 15)) +
    field('62', field('05', input.txid)) +
    '6304';
  return `${body}${crc16(body)}`;
}

/** True when the text is a whole BR Code whose CRC holds (what a payer's app checks before paying). */
export function brCodeValid(text: string): boolean {
  const match = /^(000201.*6304)([0-9A-F]{4})$/.exec(text);
  return match !== null && crc16(match[1]!) === match[2];
}

/** The top-level fields of a BR Code, id → value (nested templates left as their raw value). */
export function brCodeFields(text: string): Map<string, string> {
  const fields = new Map<string, string>();
  let at = 0;
  while (at < text.length) {
    const id = text.slice(at, at + 2);
    const length = Number(text.slice(at + 2, at + 4));
    if (!/^\d{2}$/.test(id) || !Number.isInteger(length)) throw new Error('not a BR Code');
    fields.set(id, text.slice(at + 4, at + 4 + length));
    at += 4 + length;
  }
  return fields;
}
