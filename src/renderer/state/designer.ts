import { create } from 'zustand';
import { persist } from 'zustand/middleware';
import type { MethodOutput } from '../../shared/api';
import type { PlanIssue } from '../../shared/api/plans';
import { api } from '../api/client';
import { defaultForm, formToPlan, type PlanForm } from '../lib/plan-form';

type Validation = MethodOutput<'validatePlan'>;

interface DesignerState {
  form: PlanForm;
  validation: Validation | null;
  validating: boolean;
  validationError: string | null;
  /**
   * The problems startSweep refused the form's plan for, each at its field (the engine may see what the last check
   * did not: a device gone since); null once the form changes or is checked again.
   */
  refused: PlanIssue[] | null;
  update(patch: Partial<PlanForm>): void;
  replace(form: PlanForm): void;
  validate(): Promise<Validation | null>;
  refuse(issues: PlanIssue[]): void;
}

let seq = 0;
let timer: ReturnType<typeof setTimeout> | null = null;

export const useDesigner = create<DesignerState>()(
  persist(
    (set, get) => ({
      form: defaultForm(),
      validation: null,
      validating: false,
      validationError: null,
      refused: null,
      update(patch) {
        // The last check no longer describes the form: show it as pending until the new one answers.
        set({ form: { ...get().form, ...patch }, validating: true, refused: null });
        scheduleValidation(get);
      },
      replace(form) {
        set({ form, validating: true, refused: null });
        scheduleValidation(get);
      },
      async validate() {
        const my = ++seq;
        set({ validating: true });
        try {
          const v = await api.validatePlan({ plan: formToPlan(get().form) });
          if (my === seq) set({ validation: v, validating: false, validationError: null, refused: null });
          return v;
        } catch (e) {
          if (my === seq) set({ validating: false, validationError: (e as Error).message, validation: null });
          return null;
        }
      },
      refuse(issues) {
        set({ refused: issues });
      },
    }),
    { name: 'caplab.designer', version: 1, partialize: (s) => ({ form: s.form }) },
  ),
);

function scheduleValidation(get: () => DesignerState): void {
  if (timer) clearTimeout(timer);
  timer = setTimeout(() => void get().validate(), 250);
}
