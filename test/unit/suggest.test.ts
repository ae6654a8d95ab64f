import { describe, expect, it } from 'vitest';
import { closestNames, didYouMean, editDistance } from '../../src/shared/suggest';

describe('did you mean', () => {
  it('counts a substitution, an insertion, a deletion and a swap of neighbours as one edit each', () => {
    expect(editDistance('resnet5O', 'resnet50')).toBe(1);
    expect(editDistance('resnet5', 'resnet50')).toBe(1);
    expect(editDistance('resnet500', 'resnet50')).toBe(1);
    expect(editDistance('rsenet50', 'resnet50')).toBe(1);
    expect(editDistance('', 'abc')).toBe(3);
  });

  it('suggests the nearest known names, and nothing for a name that is near none', () => {
    const known = ['resnet50', 'vit_l_16', 'llama_pretrain', 'llama_infer', 'sd_train', 'command'];
    expect(closestNames('resnet5O', known)).toEqual(['resnet50']);
    expect(closestNames('VIT_L_16', known)).toEqual(['vit_l_16']);
    expect(closestNames('llama_infr', known)).toEqual(['llama_infer']);
    expect(closestNames('no_such_workload', known)).toEqual([]);
    expect(closestNames('xy', known)).toEqual([]);
    expect(didYouMean('resnet5O', known)).toBe(' (did you mean "resnet50"?)');
    expect(didYouMean('devics', ['devices', 'device'])).toBe(' (did you mean "device" or "devices"?)');
    expect(didYouMean('zzz', known)).toBe('');
  });
});
