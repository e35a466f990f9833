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

/** Countries and cities; a city with the country it lies in (an EU one makes its ad set name the DSA fields). */
export const LOCATIONS: OptionItem[] = [
  ['US', 'United States', 'country', 'US'],
  ['GB', 'United Kingdom', 'country', 'GB'],
  ['DE', 'Germany', 'country', 'DE'],
  ['FR', 'France', 'country', 'FR'],
  ['CA', 'Canada', 'country', 'CA'],
  ['AU', 'Australia', 'country', 'AU'],
  ['NL', 'Netherlands', 'country', 'NL'],
  ['ES', 'Spain', 'country', 'ES'],
  ['2418779', 'New York, NY', 'city', 'US'],
  ['2490299', 'London', 'city', 'GB'],
  ['2421836', 'Los Angeles, CA', 'city', 'US'],
  ['2418956', 'Berlin', 'city', 'DE'],
  ['1035987', 'Saint-Denis, Réunion', 'city', 'RE'],
].map(([id, name, type, countryCode]) => ({ id, name, type, countryCode }));

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
