"""Which tests are ``slow``, ``fuzz`` or start processes (``subprocess``): ``make test-fast``
leaves them out (``-m "not slow and not fuzz and not subprocess"``), ``make test`` runs all.

* ``subprocess``: starts a process (the CLIs through ``python -m``, ``dask`` schedulers and
  workers, a fresh interpreter to measure imports); tests/conftest.py fails an unmarked test
  that starts one.
* ``fuzz``: many random inputs (hypothesis with hundreds of examples, seeded sweeps).
* ``slow``: over :data:`SLOW_SECONDS` of CPU on a 2-core machine, a Hypothesis test with the
  ``dev`` profile's examples (a run names the unmarked tests over it at its end; tests that
  share a cached or module-scoped fixture are marked together).

An entry is a test file (all its tests), ``file::test`` (all its parameters) or
``file::test[params]`` (one); tests/test_suite_structure.py checks that each names a test.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

MARKERS = ("slow", "fuzz", "subprocess")
SLOW_SECONDS = 1.0

TABLE: dict[str, list[str]] = {
    "subprocess": [
        "test_warm.py",
        "test_bench_sim.py::test_spmv_lanes_row_splits_the_cycles",
        "test_cli.py",
        "test_commands.py::test_ctrl_c_in_the_middle_is_one_line",
        "test_concordant_storage.py::test_compile_then_sam_sim_run_with_an_mtx_input",
        "test_concordant_storage.py::"
        "test_sam_sim_run_makes_the_copy_of_a_tensor_read_in_two_orders",
        "test_custard_language.py::test_a_program_from_the_command_line_runs_in_sam_sim",
        "test_custard_language.py::test_constants_and_ranges_need_no_tensor_in_sam_sim",
        "test_custard_parse.py::test_cli_compile_to_file_and_reload",
        "test_custard_parse.py::test_cli_counts_and_table1",
        "test_custard_parse.py::test_cli_draw_svg",
        "test_custard_parse.py::test_cli_errors_in_a_subprocess",
        "test_custard_parse.py::test_cli_help_documents_syntax_defaults_and_examples",
        "test_custard_parse.py::test_cli_long_options_stdout_and_counts",
        "test_custard_parse.py::test_cli_usage_error_in_a_subprocess",
        "test_custard_parse.py::test_draw_without_sam_graph_draw_uses_graphviz",
        "test_dag_scale.py::test_outputs_are_written_whole",
        "test_dot.py::test_written_file_renders_with_dot",
        "test_dot_limits.py::test_100k_chain_with_labels_under_1gb",
        "test_dot_limits.py::test_100mb_file_refused_unread",
        "test_dot_limits.py::test_one_long_label_refused_under_1gb",
        "test_draw.py::test_odd_names_render",
        "test_draw.py::test_png_is_valid",
        "test_draw.py::test_svg_is_valid",
        "test_draw.py::test_with_stats_svg_and_png",
        "test_html_report.py::test_edge_tokens_match_the_report",
        "test_html_report.py::test_graph_repr_svg_and_ids",
        "test_html_report.py::test_page_in_chromium",
        "test_html_report.py::test_page_is_self_contained",
        "test_html_report.py::test_program_page_in_chromium",
        "test_html_report.py::test_timeline_zooms_and_resets_in_chromium",
        "test_layering.py::test_formats_works_without_sam_and_custard",
        "test_layering.py::test_sam_works_without_custard",
        "test_lazy_numba.py",
        "test_memory.py::test_cli_refuses_in_one_line",
        "test_nothing_lost.py::test_custard_name_names_the_graph",
        "test_nothing_lost.py::test_deadlock_writes_the_report_with_partial_statistics",
        "test_nothing_lost.py::test_draw_writes_only_pictures",
        "test_nothing_lost.py::test_each_synthetic_operand_gets_its_own_seed",
        "test_nothing_lost.py::test_failed_run_leaves_an_existing_output_intact",
        "test_nothing_lost.py::test_first_run_says_it_compiles_kernels",
        "test_nothing_lost.py::test_non_finite_inputs_check_pass_without_warnings",
        "test_nothing_lost.py::test_output_equal_to_an_input_is_refused",
        "test_nothing_lost.py::test_repeated_latency_is_refused",
        "test_nothing_lost.py::test_sam_sim_tensor_takes_random_specs_and_custard_spelling",
        "test_nothing_lost.py::test_two_outputs_of_one_file_are_refused",
        "test_reproduce.py::test_dask_local_cluster_gives_the_same_results",
        "test_sam_cli.py::test_blocks_pair_elemmul",
        "test_sam_cli.py::test_check_fail_exits_3",
        "test_sam_cli.py::test_custard_compile_run_check_result",
        "test_sam_cli.py::test_custard_run_ctrl_c_json_without_terminal",
        "test_sam_cli.py::test_custard_run_errors",
        "test_sam_cli.py::test_custard_run_json_matches_sam_sim",
        "test_sam_cli.py::test_data_lists_shipped_names",
        "test_sam_cli.py::test_data_table_has_shapes_and_nonzeros",
        "test_sam_cli.py::test_draw_svg_and_png_without_stats",
        "test_sam_cli.py::test_draw_with_stats_shows_report_counts",
        "test_sam_cli.py::test_error_is_one_line",
        "test_sam_cli.py::test_fifo_depth_and_latency_change_cycles",
        "test_sam_cli.py::test_help_mentions_specs_and_exit_codes",
        "test_sam_cli.py::test_json_report_blocks_and_streams_add_up",
        "test_sam_cli.py::test_json_report_fields",
        "test_sam_cli.py::test_mat_elemadd_transpose_reference_npz",
        "test_sam_cli.py::test_matmul_west0479_fast_engine_mtx",
        "test_sam_cli.py::test_no_command_prints_help_and_exits_2",
        "test_sam_cli.py::test_original_custard_graph_checks_with_expr",
        "test_sam_cli.py::test_plot_tokens_and_timeline",
        "test_sam_cli.py::test_plot_unknown_stream_is_one_line",
        "test_sam_cli.py::test_progress_bar_on_a_terminal_and_ctrl_c",
        "test_sam_cli.py::test_random_operands_size_and_feed_each_other",
        "test_sam_cli.py::test_report_file_is_the_printed_json",
        "test_sam_cli.py::test_runs_pair_elemadd_fast",
        "test_sam_cli.py::test_scalar_binding",
        "test_sam_cli.py::test_scalar_result_tns_and_npy",
        "test_sam_cli.py::test_seed_option_seeds_random_specs",
        "test_sam_cli.py::test_spmv_lp_scsd1_random_vector_tns",
        "test_sam_cli.py::test_tensor_prints_level_arrays",
        "test_sam_cli.py::test_tensor_times_vector_splatt_small",
        "test_sam_cli.py::test_text_report_matches_json",
        "test_sam_cli.py::test_usage_errors_exit_2",
        "test_startup.py::test_command_line_imports_are_lazy",
        "test_startup.py::test_custard_compile_loads_no_simulator_nor_heavy_modules",
        "test_startup.py::test_small_run_never_loads_numba",
        "test_startup.py::test_a_run_shorter_than_a_compile_never_compiles",
        "test_sweep_faults.py::test_a_point_that_kills_its_workers",
        "test_sweep_faults.py::test_a_worker_address_is_not_a_scheduler",
        "test_sweep_faults.py::test_client_killed_mid_sweep_resumes",
        "test_sweep_faults.py::test_ctrl_c_during_reproduce",
        "test_sweep_faults.py::test_scheduler_killed_mid_sweep",
        "test_sweep_faults.py::test_two_writers_of_one_point_both_succeed",
        "test_sweep_faults.py::test_worker_killed_mid_sweep",
        "test_sweep_faults.py::test_workers_with_other_code_are_refused",
        "test_table1.py::test_report_and_script",
        "test_tiling_dask.py::test_dask_equals_single_process_west0479",
    ],
    "fuzz": [
        "test_dot_fuzz.py",
        "test_bad_input.py::test_mutated_mtx_gives_a_matrix_or_a_read_error",
        "test_bad_input.py::test_mutated_tns_gives_a_tensor_or_a_read_error",
        "test_custard_parse.py::test_fuzz_compile",
        "test_custard_parse.py::test_fuzz_einsum",
        "test_custard_parse.py::test_fuzz_format_option",
        "test_custard_parse.py::test_fuzz_parse_expression",
        "test_custard_parse.py::test_fuzz_schedule",
        "test_custard_random.py",
        "test_dot_fidelity.py::test_random_graphs_run_the_same_through_dot",
        "test_engines_agree.py::test_miswired_graph",
    ],
    "slow": [
        "test_tmu_span.py::test_many_short_fibers_same_on_every_path",
        "test_jitcache.py::test_a_kernel_is_compiled_once_then_loaded_from_its_own_entry",
        "test_warm.py",
        "test_accumulator_burst.py::test_emit_and_sort_match_numpy_and_general_path",
        "test_atomic.py::test_streaming_keeps_memory_small",
        "test_backends.py::test_both_engines_give_the_same_cycles",
        "test_bitvector_suite.py::test_real_matrix_with_bitvector_levels[mat_elemadd-b-reference]",
        "test_bitvector_suite.py::test_real_matrix_with_bitvector_levels["
        "mat_elemmul-b16-reference]",
        "test_bitvector_suite.py::test_real_matrix_with_bitvector_levels["
        "mat_vecmul_ij-b16-reference]",
        "test_bitvector_suite.py::test_real_matrix_with_bitvector_levels[matmul_ikj-b-reference]",
        "test_commands.py::test_many_lanes_compile_and_simulate_right",
        "test_concordant_storage.py::test_a_tensor_read_in_two_orders_gets_a_copy",
        "test_concordant_storage.py::test_discordant_result_is_written_in_loop_order_and_converted",
        "test_corpus.py::test_most_of_the_sample_compiles",
        "test_differential.py::test_cycles_within_5_percent_of_the_original_simulator",
        "test_differential.py::test_record",
        "test_differential_pre.py::test_record",
        "test_corpus.py::test_no_line_crashes",
        "test_corpus.py::test_refusals_are_one_line",
        "test_corpus.py::test_simulated_through_dot_equals_gold_and_memory",
        "test_corpus.py::test_the_whole_corpus_compiles",
        "test_custard_language.py::test_a_flat_sum_of_400_operands",
        "test_custard_language.py::test_a_product_of_400_operands_compiles",
        "test_custard_language.py::test_sums_combined_with_other_terms["
        "D(i,j)=A(i,k,j)*B(i,k)+C(i,j)]",
        "test_custard_parse.py::test_deep_expressions_raise_compile_errors_or_compile["
        "1000-term-sum]",
        "test_custard_regressions.py::test_union_with_inner_summed_variable_writes_every_value["
        "fast]",
        "test_custard_regressions.py::test_union_with_inner_summed_variable_writes_every_value["
        "reference]",
        "test_dag.py::test_block_cg_converges_like_scipy[LFAT5-reference-60]",
        "test_dag.py::test_gcn_program_matches_numpy[fast]",
        "test_dag.py::test_reproduce_gogeta_quick",
        "test_dag_fusion.py::test_fused_equals_numpy_on_random_inputs[elementwise-streamed-fast]",
        "test_dag_fusion.py::test_shipped_matrices",
        "test_dag_scale.py::test_chain_of_1000_statements",
        "test_dag_scale.py::test_orders_and_labels_equal_the_exhaustive_search",
        "test_dot.py::test_edge_comments_follow_custard[matmul_ikj]",
        "test_dot.py::test_edge_comments_follow_custard[vec_elemadd]",
        "test_dot.py::test_node_attributes_match_original[matmul_ikj]",
        "test_dot_fidelity.py::test_issue_examples_run_through_dot["
        "X(i,j)=B(i,k,l,m)*E(m,j)*D(l,j)*C(k,j)-formats6-None-reference]",
        "test_dot_fidelity.py::test_thirteen_level_graph_runs_through_dot",
        "test_dot_graphs.py::test_matmul_orders_agree[GD97_b-reference]",
        "test_dot_graphs.py::test_matmul_orders_agree[bcsstm02-reference]",
        "test_dot_limits.py::test_chain_memory_per_node",
        "test_ember.py::test_optimizations_cut_queue_traffic_on_every_operation",
        "test_ember_cli.py::test_run_writes_result_and_trace[tmu]",
        "test_ember_cli_safety.py::test_deepest_supported_nest_compiles_and_runs",
        "test_engines_agree.py::test_real_matrix[matmul_ikj-west0479]",
        "test_engines_agree.py::test_suite_graph_bounded_fifos[mat_sddmm-LFAT5-1]",
        "test_engines_agree.py::test_suite_graph_bounded_fifos[matmul_ijk-LFAT5-1]",
        "test_engines_agree.py::test_suite_graph_bounded_fifos[matmul_jik-LFAT5-1]",
        "test_execute_fast.py::test_west0479_sls_same_and_equal_scipy",
        "test_fig11.py::test_quick_run_writes_the_three_series",
        "test_fig13.py::test_files_and_columns",
        "test_fig13.py::test_values",
        "test_fig13_original.py::test_original_timing_within_ten_percent_at_every_point",
        "test_fig15.py::test_point_variants_and_tuples",
        "test_fig15_original.py::test_cycles_with_the_originals_pe",
        "test_fig15_original.py::test_matrices_and_tiles_are_the_originals",
        "test_fig15_original.py::test_no_nbuffering_against_the_original",
        "test_formats_io.py::test_shipped_mtx_equals_scipy[pushpull]",
        "test_formats_io.py::test_shipped_tns_points[splatt-med]",
        "test_formats_roundtrip.py::test_dense_round_trip_in_every_format[4]",
        "test_intersect_burst.py::test_real_matrix_both_engines[X(i,j)=B(i,k)*C(k,j)-None]",
        "test_layering.py::test_code_outside_formats_asks_level_capabilities",
        "test_layering.py::test_layers_import_one_way",
        "test_layering.py::test_no_import_cycles",
        "test_layering.py::test_no_private_names_imported_across_modules",
        "test_locate.py::test_kernel_suite_located_everywhere["
        "22-tensor3_ttm-X(i,j,k)=B(i,j,l)*C(k,l) -f=X:sss -f=B:sss -f=C:ss]",
        "test_locate.py::test_sddmm_on_a_real_matrix_both_engines",
        "test_long_runs.py::test_drop_run_compiled_is_one_firing_at_a_time",
        "test_memory_model.py::test_engines_agree_on_memory_cycles",
        "test_memory_model.py::test_tiled_matmul_bounds",
        "test_nonempty_dims.py::test_suite_kernel_assuming_nonempty_dims["
        "18-tensor3_identity_dense-X(i,j,k)=B(i,j,k) -f=X:ddd -f=B:ddd]",
        "test_nonempty_dims.py::test_suite_kernel_assuming_nonempty_dims["
        "21-tensor3_ttv-X(i,j)=B(i,j,k)*c(k) -f=X:ss -f=B:sss -f=c:s]",
        "test_nonempty_dims.py::test_suite_kernel_assuming_nonempty_dims["
        "27-tensor3_mttkrp-X(i,j)=B(i,k,l)*C(j,k)*D(j,l) -f=X:ss -f=B:sss -f=C:ss -f=D:ss]",
        "test_original_graphs.py::test_original_graph_matches_numpy[tensor3_website_expr]",
        "test_ragged_custard.py::test_attention_hypothesis_both_engines",
        "test_ragged_reproduce.py::test_reproduce_ragged_table",
        "test_reproduce.py::test_fig12_quick_values",
        "test_reproduce.py::test_fig14_counts_match_the_matrix",
        "test_reproduce.py::test_quick_writes_csv_png_and_claims",
        "test_reproduce_cli.py::test_fig15_matrix_cache_drawn_once_with_a_notice",
        "test_reproduce_cli.py::test_fig15_quick_needs_no_matrix_cache",
        "test_reproduce_ember_opt.py::"
        "test_one_real_quick_point_is_correct_and_times_every_ablation_step",
        "test_sccloop.py::test_compiled_loop_on_west0479[False-2]",
        "test_sccloop.py::test_compiled_loop_on_west0479[True-2]",
        "test_split_suite.py::test_real_matrix_split_at_every_level[online-reference]",
        "test_split_suite.py::test_suite_kernel_split[tensor3_ttm-l-online]",
        "test_startup.py::test_switching_mid_run_changes_nothing[spmspm ikj random]",
        "test_startup.py::test_switching_mid_run_changes_nothing[spmv west0479]",
        "test_sweep_faults.py::test_non_dask_address_fails_in_seconds",
        "test_tile_cli.py::test_check_verdict_against_scipy",
        "test_tiling.py::test_custard_tile_command",
        "test_tiling.py::test_tiled_equals_untiled[tensor3_mttkrp-reference]",
        "test_tiling.py::test_tiled_equals_untiled[tensor3_ttm-reference]",
        "test_tiling.py::test_tiled_matmul_real_matrix[reference]",
        "test_tiling_dask.py::test_dask_equals_single_process_west0479",
        "test_tiling_dask.py::test_pushpull_gustavson_parallel_same_cycles",
        "test_tmu.py::test_west0479_sls_reference_engine_and_bounded_queues",
        "test_tmu_chunk.py::test_chunks_equal_the_per_element_path_and_numpy",
        "test_tmu_speed.py::test_west0479_sls_deep_queues_engines_agree",
        "test_table2_original.py::test_full_corpus_differences_equal_the_classified_lists",
    ],
}


def markers(nodeid: str, table: Mapping[str, Sequence[str]] = TABLE) -> list[str]:
    """The markers the table gives the test ``nodeid`` (``tests/file::test[params]``)."""
    nodeid = nodeid.removeprefix("tests/")
    bare = nodeid.split("[", 1)[0]
    out = []
    for marker in MARKERS:
        for entry in table[marker]:
            if entry == nodeid or (entry == bare and "[" not in entry) or nodeid.startswith(
                    entry + "::") and "::" not in entry:
                out.append(marker)
                break
    return out
