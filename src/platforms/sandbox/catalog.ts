// Built-in targeting values of the simulated platforms: what the live APIs would search.

import type { OptionItem } from '../port.js';

export const INTERESTS: OptionItem[] = [
  ['6003107902433', 'Running'],
  ['6003139266461', 'Shoes'],
  ['6003020834693', 'Fashion'],
  ['6003384248805', 'Fitness and wellness'],
  ['6003348604581', 'Hiking'],
  ['6003277229526', 'Online shopping'],
  ['6003012317397', 'Sneakers'],
  ['6003397425735', 'Outdoor recreation'],
  ['6003107699532', 'Travel'],
  ['6003349442621', 'Yoga'],
  ['6002868910910', 'Marathon'],
  ['6003263791114', 'Hats'],
].map(([id, name]) => ({ id, name, audienceSize: 1_000_000 + (Number(id.slice(-6)) % 90) * 1_000_000 }));

export const LOCATIONS: OptionItem[] = [
  ['US', 'United States', 'country'],
  ['GB', 'United Kingdom', 'country'],
  ['DE', 'Germany', 'country'],
  ['FR', 'France', 'country'],
  ['CA', 'Canada', 'country'],
  ['AU', 'Australia', 'country'],
  ['NL', 'Netherlands', 'country'],
  ['ES', 'Spain', 'country'],
  ['2418779', 'New York, NY', 'city'],
  ['2490299', 'London', 'city'],
  ['2421836', 'Los Angeles, CA', 'city'],
  ['2418956', 'Berlin', 'city'],
].map(([id, name, type]) => ({ id, name, type }));

export const CONVERSION_EVENTS: OptionItem[] = [
  'PURCHASE',
  'ADD_TO_CART',
  'INITIATED_CHECKOUT',
  'LEAD',
  'COMPLETE_REGISTRATION',
  'VIEW_CONTENT',
  'SEARCH',
  'SUBSCRIBE',
].map((id) => ({ id, name: id.toLowerCase().replace(/_/g, ' ') }));
